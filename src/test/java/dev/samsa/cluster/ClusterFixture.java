package dev.samsa.cluster;

import dev.samsa.event.ClusterEvent;
import dev.samsa.event.TimedEvent;
import dev.samsa.event.Timeline;
import dev.samsa.fault.FaultState;
import dev.samsa.log.store.MappedStores;
import dev.samsa.time.ClusterClock;
import dev.samsa.time.ClusterLoop;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * The cluster domain without brokers or sockets: metadata, a manual cluster clock and a wall clock the test moves by
 * hand, on a loop of its own. Everything that touches the state goes through {@link #call}.
 */
public final class ClusterFixture implements AutoCloseable {

    static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    final ClusterClock clock = ClusterClock.manual(START);
    private final AtomicLong wallNanos = new AtomicLong();
    private final ClusterLoop loop;
    public final ClusterState state;

    public ClusterFixture(Path dir, int brokers, Map<String, String> brokerConfigs) {
        this.loop = new ClusterLoop("fixture-loop", clock, (brokerId, error) -> { }, wallNanos::get);
        this.state = loop.call(() -> {
            Random random = new Random(0);
            Timeline timeline = new Timeline(clock::milliseconds, () -> wallNanos.get() / 1_000_000L);
            ClusterMetadata metadata = new ClusterMetadata(dir, MappedStores.detect(), random, timeline, clock::milliseconds);
            for (int id = 1; id <= brokers; id++) {
                Map<String, String> configs = new LinkedHashMap<>(brokerConfigs);
                configs.put("broker.id", Integer.toString(id));
                metadata.registerBroker(new BrokerInfo(id, "127.0.0.1", 0, null), new BrokerConfigs(configs, new HashMap<>()));
            }
            return new ClusterState(loop, metadata, new DelayedOperations(loop.scheduler()), new ProducerIdManager(metadata),
                    timeline, random, new EnumMap<>(ApiKeys.class), new FaultState());
        });
    }

    public <T> T call(Callable<T> task) {
        return loop.call(task);
    }

    public void run(Runnable task) {
        loop.call(() -> {
            task.run();
            return null;
        });
    }

    Partition createTopic(String name, List<Integer> replicas) {
        return call(() -> state.metadata().createTopic(name, -1, -1, List.of(new ReplicaAssignment(0, replicas)), Map.of(), false).partitions().get(0));
    }

    /** A produce with acks=1 on the leader, as ProduceHandler makes it; returns the offset after the last record. */
    long append(TopicPartition tp, String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(values[i].getBytes(StandardCharsets.UTF_8));
        }
        return append(tp, records);
    }

    long append(TopicPartition tp, SimpleRecord... records) {
        return call(() -> state.replicaManager().appendAsLeader(state.metadata().partition(tp).leader(), tp,
                MemoryRecords.withRecords(Compression.NONE, records), (short) 1).lastOffset() + 1);
    }

    void advance(long ms) {
        clock.advance(Duration.ofMillis(ms));
    }

    /**
     * Moves wall time and lets the loop run the wall timers now due: they run after the first task, so the second one
     * sees what they did.
     */
    public void advanceWall(long ms) {
        wallNanos.addAndGet(ms * 1_000_000L);
        run(() -> { });
        run(() -> { });
    }

    List<Integer> isr(TopicPartition tp) {
        return call(() -> state.metadata().partition(tp).isr());
    }

    <T extends ClusterEvent> List<T> events(Class<T> type) {
        return state.timeline().events().stream().map(TimedEvent::event).filter(type::isInstance).map(type::cast).toList();
    }

    @Override
    public void close() {
        try {
            run(() -> state.metadata().close());
        } finally {
            loop.close();
        }
    }
}
