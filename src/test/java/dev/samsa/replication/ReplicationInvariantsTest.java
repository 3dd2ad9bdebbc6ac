package dev.samsa.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.BrokerInfo;
import dev.samsa.cluster.ClusterMetadata;
import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Controller;
import dev.samsa.cluster.DelayedOperation;
import dev.samsa.cluster.DelayedOperations;
import dev.samsa.cluster.LogAppendResult;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.ProducerIdManager;
import dev.samsa.cluster.ReplicaManager;
import dev.samsa.event.LeaderChanged;
import dev.samsa.event.TimedEvent;
import dev.samsa.event.Timeline;
import dev.samsa.event.Truncated;
import dev.samsa.fault.FaultState;
import dev.samsa.log.LogFileUtils;
import dev.samsa.log.PartitionLog;
import dev.samsa.log.store.MappedStores;
import dev.samsa.time.ClusterClock;
import dev.samsa.time.ClusterLoop;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.Tuple;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Kafka's replication invariants, checked after every step of generated fault schedules on one partition replicated
 * three times over 3 to 5 brokers, with a manual clock: produce with acks 0, 1 or all (to the leader, or to a stale
 * leader that still believes it leads), follower pause and resume, crash, power loss, restart, isolation from the
 * other brokers and heal, clock jumps (ISR shrink by lag, expansion), preferred (clean) and admin unclean elections,
 * with min.insync.replicas 1 or 2, unclean.leader.election.enable on or off, and flush on every message or not. jqwik
 * shrinks a failing schedule to a minimal one.
 *
 * <p>The invariants, after every step and once more after everything is healed and caught up:
 * <ol>
 *   <li>no acknowledged acks=all record is lost (the leader holds it at its offset), unless an unclean election
 *       happened or a power loss could have taken unflushed copies;</li>
 *   <li>every in-sync replica agrees with the leader on every offset below the high watermark;</li>
 *   <li>the high watermark never goes back while the same leader leads in the same epoch;</li>
 *   <li>every record that leaves a replica's log leaves it in a {@code Truncated} event (or a power loss);</li>
 *   <li>after healing and catch-up, every in-sync replica's log is byte for byte the leader's.</li>
 * </ol>
 *
 * <p>The cluster is Samsa's own domain (controller, replica fetcher, replica manager, purgatory, logs on disk) on its
 * own loop, driven as {@code Broker} and {@code Faults} drive it, without sockets: a schedule takes milliseconds, so
 * thousands can run. The data-loss scenarios with real clients are {@link DoubleFailoverTest}, {@link StaleLeaderTest}
 * and {@link DataLossScenariosTest}.
 *
 * <p>The suite runs {@code jqwik.tries.default} schedules (src/test/resources/junit-platform.properties). To run
 * thousands, with the log-recovery warning of every power loss silenced (with them, one 10 000-schedule run ended
 * in surefire reporting a crashed fork after the tests had finished):
 * <pre>
 * mvn -o test -Dtest=ReplicationInvariantsTest -Djqwik.tries.default=10000 \
 *     -Dorg.slf4j.simpleLogger.log.dev.samsa.log.LogLoader=error
 * </pre>
 * A failure prints the shrunk schedule and the timeline; jqwik replays the failing sample first on the next run.
 */
class ReplicationInvariantsTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final long LAG_MS = 30_000;

    /** One step of a schedule. Broker and replica numbers are taken modulo what exists. */
    sealed interface Step {
    }

    record Produce(int acks, int records, int target) implements Step {
    }

    record Pause(int replica) implements Step {
    }

    record Resume(int replica) implements Step {
    }

    record Crash(int broker) implements Step {
    }

    record PowerLoss(int broker) implements Step {
    }

    record Restart(int broker) implements Step {
    }

    record IsolateFromBrokers(int broker) implements Step {
    }

    record Heal(int broker) implements Step {
    }

    record Advance(long ms) implements Step {
    }

    record ElectPreferred() implements Step {
    }

    record ElectUnclean() implements Step {
    }

    record Schedule(int brokers, int minInsync, boolean unclean, boolean flushEach, List<Step> steps) {
    }

    @Property(shrinking = ShrinkingMode.FULL)
    void replicationInvariantsHoldAfterEveryStep(@ForAll("schedules") Schedule schedule) {
        try (Run run = new Run(schedule)) {
            for (Step step : schedule.steps()) {
                run.apply(step);
                run.checkInvariants("after " + step);
            }
            run.healEverythingAndCatchUp();
            run.checkInvariants("after healing");
            run.checkReplicasIdentical();
        }
    }

    @Provide
    Arbitrary<Schedule> schedules() {
        Arbitrary<Integer> broker = Arbitraries.integers().between(1, 5);
        Arbitrary<Integer> replica = Arbitraries.integers().between(0, 2);
        Arbitrary<Step> step = Arbitraries.frequencyOf(
                weighted(6, Combinators.combine(Arbitraries.of(0, 1, -1), Arbitraries.integers().between(1, 3),
                        Arbitraries.integers().between(0, 2)).as(Produce::new)),
                weighted(2, replica.map(Pause::new)),
                weighted(2, replica.map(Resume::new)),
                weighted(1, broker.map(Crash::new)),
                weighted(1, broker.map(PowerLoss::new)),
                weighted(2, broker.map(Restart::new)),
                weighted(1, broker.map(IsolateFromBrokers::new)),
                weighted(1, broker.map(Heal::new)),
                weighted(2, Arbitraries.of(1_000L, 10_000L, LAG_MS + 1).map(Advance::new)),
                weighted(1, Arbitraries.just(new ElectPreferred())),
                weighted(1, Arbitraries.just(new ElectUnclean())));
        return Combinators.combine(Arbitraries.integers().between(3, 5), Arbitraries.integers().between(1, 2),
                Arbitraries.of(true, false), Arbitraries.of(true, false), step.list().ofMinSize(1).ofMaxSize(30))
                .as(Schedule::new);
    }

    private static Tuple.Tuple2<Integer, Arbitrary<? extends Step>> weighted(int weight, Arbitrary<? extends Step> steps) {
        return Tuple.of(weight, steps);
    }

    /** An acknowledged acks=all record: where it was written, and its value. */
    private record Acked(long offset, String value) {
    }

    /** A batch as a replica holds it: offsets, epoch and every byte. */
    private record Batch(long baseOffset, long lastOffset, int epoch, List<String> values, int crc) {
    }

    /** One schedule's cluster: the domain on its loop, and what the checks remember between steps. */
    private static final class Run implements AutoCloseable {
        private final Schedule schedule;
        private final Path dir;
        private final ClusterClock clock = ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z"));
        private final ClusterLoop loop;
        private final ClusterState state;
        private final Set<Integer> down = new HashSet<>();
        private final Set<Integer> isolated = new HashSet<>();
        private final Set<Integer> paused = new HashSet<>();
        private final List<Acked> acked = new ArrayList<>();
        private final Map<Integer, List<Batch>> lastSeen = new HashMap<>();
        private final Set<Integer> powerLostSinceSeen = new HashSet<>();
        private final Map<String, Long> highWatermarkByLeaderAndEpoch = new HashMap<>();
        private int eventsSeen;
        private boolean uncleanElected;
        private boolean powerLost;
        private int values;

        Run(Schedule schedule) {
            this.schedule = schedule;
            try {
                this.dir = Files.createTempDirectory("samsa-invariants-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            this.loop = new ClusterLoop("invariants-loop", clock);
            this.state = loop.call(() -> {
                Random random = new Random(0);
                Timeline timeline = new Timeline(clock::milliseconds, loop::wallMillis);
                ClusterMetadata metadata = new ClusterMetadata(dir, MappedStores.detect(), random, timeline, clock::milliseconds);
                ClusterState s = new ClusterState(loop, metadata, new DelayedOperations(loop.scheduler()),
                        new ProducerIdManager(metadata), timeline, random, new EnumMap<>(ApiKeys.class), new FaultState());
                Map<String, String> defaults = new HashMap<>();
                for (int id = 1; id <= schedule.brokers(); id++) {
                    Map<String, String> configs = new LinkedHashMap<>();
                    configs.put("broker.id", Integer.toString(id));
                    configs.put("min.insync.replicas", Integer.toString(schedule.minInsync()));
                    configs.put("unclean.leader.election.enable", Boolean.toString(schedule.unclean()));
                    configs.put("log.message.timestamp.after.max.ms", Long.toString(Long.MAX_VALUE));
                    metadata.registerBroker(new BrokerInfo(id, "127.0.0.1", 0, null), new BrokerConfigs(configs, defaults));
                }
                metadata.createTopic(TP.topic(), 1, 3, List.of(), schedule.flushEach() ? Map.of("flush.messages", "1") : Map.of(), false);
                s.controller().activate();
                return s;
            });
        }

        private Partition partition() {
            return state.metadata().partition(TP);
        }

        private int broker(int n) {
            return (n - 1) % schedule.brokers() + 1;
        }

        void apply(Step step) {
            if (step instanceof Advance a) {
                clock.advance(Duration.ofMillis(a.ms()));
                return;
            }
            loop.call(() -> {
                applyOnLoop(step);
                return null;
            });
        }

        private void applyOnLoop(Step step) {
            Controller controller = state.controller();
            if (step instanceof Produce p) {
                produce(p);
            } else if (step instanceof Pause p) {
                int follower = partition().replicas().get(p.replica());
                if (paused.add(follower)) {
                    state.fetcher().pause(partition(), follower);
                }
            } else if (step instanceof Resume r) {
                int follower = partition().replicas().get(r.replica());
                if (paused.remove(follower)) {
                    state.faults().resume(TP, follower);
                    state.fetcher().replicateSoon(partition());
                }
            } else if (step instanceof Crash c) {
                stop(broker(c.broker()), Controller.Stop.CRASH);
            } else if (step instanceof PowerLoss c) {
                if (stop(broker(c.broker()), Controller.Stop.POWER_LOSS)) {
                    powerLost = true;
                    powerLostSinceSeen.add(broker(c.broker()));
                }
            } else if (step instanceof Restart r) {
                int b = broker(r.broker());
                if (down.remove(b)) {
                    state.faults().heal(b);
                    controller.brokerStarted(b);
                }
            } else if (step instanceof IsolateFromBrokers i) {
                int b = broker(i.broker());
                if (!down.contains(b) && isolated.add(b)) {
                    state.faults().isolate(b, true);
                    controller.brokerStopped(b, Controller.Stop.FENCED, state.random());
                }
            } else if (step instanceof Heal h) {
                heal(broker(h.broker()));
            } else if (step instanceof ElectPreferred) {
                controller.electPreferred(partition(), "preferred election of the schedule");
            } else if (step instanceof ElectUnclean) {
                controller.electUnclean(partition(), "unclean election of the schedule");
            } else {
                throw new IllegalArgumentException("Unknown step " + step);
            }
        }

        private boolean stop(int b, Controller.Stop how) {
            if (!down.add(b)) {
                return false;
            }
            isolated.remove(b);
            state.controller().brokerStopped(b, how, state.random());
            return true;
        }

        private void heal(int b) {
            if (isolated.remove(b)) {
                state.faults().heal(b);
                state.controller().brokerStarted(b);
            }
        }

        /** As ProduceHandler: append on the broker the client believes leads; acks=all parks until the outcome. */
        private void produce(Produce p) {
            Partition partition = partition();
            List<Integer> leaders = new ArrayList<>();
            for (int b = 1; b <= schedule.brokers(); b++) {
                if (partition.isLedBy(b) && !down.contains(b)) {
                    leaders.add(b);
                }
            }
            if (leaders.isEmpty()) {
                return;
            }
            leaders.sort(Comparator.comparing(b -> b != partition.leader()));
            int target = leaders.get(p.target() % leaders.size());
            List<String> batch = new ArrayList<>();
            SimpleRecord[] records = new SimpleRecord[p.records()];
            for (int i = 0; i < p.records(); i++) {
                String value = "v" + values++;
                batch.add(value);
                records[i] = new SimpleRecord(value.getBytes(StandardCharsets.UTF_8));
            }
            ReplicaManager replicaManager = state.replicaManager();
            LogAppendResult info;
            try {
                info = replicaManager.appendAsLeader(target, TP, MemoryRecords.withRecords(Compression.NONE, records), (short) p.acks());
            } catch (ApiException e) {
                return;
            }
            if (p.acks() != -1) {
                return;
            }
            long required = info.lastOffset() + 1;
            long first = info.firstOffset();
            state.purgatory().tryCompleteElseWatch(new DelayedOperation() {
                private Errors outcome;

                @Override
                public boolean tryComplete() {
                    outcome = replicaManager.acksAllOutcome(target, TP, required);
                    return outcome != null && forceComplete();
                }

                @Override
                protected void onComplete() {
                    if (outcome == Errors.NONE) {
                        for (int i = 0; i < batch.size(); i++) {
                            acked.add(new Acked(first + i, batch.get(i)));
                        }
                    }
                }
            }, List.of(TP), 30_000, "produce");
        }

        void healEverythingAndCatchUp() {
            loop.call(() -> {
                for (int b : List.copyOf(paused)) {
                    state.faults().resume(TP, b);
                }
                paused.clear();
                for (int b : List.copyOf(isolated)) {
                    heal(b);
                }
                for (int b : List.copyOf(down)) {
                    down.remove(b);
                    state.faults().heal(b);
                    state.controller().brokerStarted(b);
                }
                if (!partition().isOnline()) {
                    state.controller().electUnclean(partition(), "no leader after healing");
                }
                state.fetcher().replicateSoon(partition());
                return null;
            });
            // Followers fetch at once; a lag check or an expansion may wait for the clock.
            clock.advance(Duration.ofMillis(LAG_MS + 1));
            loop.call(() -> {
                state.fetcher().replicateSoon(partition());
                return null;
            });
            clock.advance(Duration.ofMillis(1));
        }

        void checkInvariants(String when) {
            loop.call(() -> {
                List<TimedEvent> events = state.timeline().events();
                Map<Integer, List<long[]>> truncations = new HashMap<>();
                for (TimedEvent e : events.subList(eventsSeen, events.size())) {
                    if (e.event() instanceof LeaderChanged elected) {
                        uncleanElected |= elected.unclean();
                    }
                    if (e.event() instanceof Truncated t) {
                        truncations.computeIfAbsent(t.brokerId(), b -> new ArrayList<>()).add(new long[] {t.toOffset(), t.fromOffset()});
                    }
                }
                eventsSeen = events.size();
                Partition partition = partition();
                String context = when + "\n" + partition + "\n" + schedule + "\n" + state.timeline();

                // 1. Nothing acknowledged with acks=all is lost.
                PartitionLog leaderLog = partition.leaderLog();
                if (leaderLog != null && !uncleanElected && (schedule.flushEach() || !powerLost)) {
                    Map<Long, String> leaderValues = values(batches(leaderLog));
                    for (Acked a : acked) {
                        assertThat(leaderValues.get(a.offset())).as("acknowledged %s on leader %d %s", a, partition.leader(), context)
                                .isEqualTo(a.value());
                    }
                }

                if (leaderLog != null) {
                    // 2. In-sync replicas agree with the leader below the high watermark.
                    List<Batch> leaderCommitted = below(batches(leaderLog), partition.highWatermark());
                    for (int r : partition.isr()) {
                        PartitionLog log = partition.log(r);
                        if (r == partition.leader() || log == null) {
                            continue;
                        }
                        List<Batch> replica = below(batches(log), partition.highWatermark());
                        assertThat(replica).as("replica %d below hw %d %s", r, partition.highWatermark(), context)
                                .isEqualTo(leaderCommitted.subList(0, Math.min(replica.size(), leaderCommitted.size())));
                    }
                    // 3. The high watermark never goes back under the same leader and epoch.
                    String key = partition.leader() + "@" + partition.leaderEpoch();
                    Long before = highWatermarkByLeaderAndEpoch.put(key, partition.highWatermark());
                    assertThat(partition.highWatermark()).as("hw of %s %s", key, context).isGreaterThanOrEqualTo(before == null ? 0 : before);
                }

                // 4. What leaves a log leaves it in a Truncated event, or with a power loss.
                for (int b = 1; b <= schedule.brokers(); b++) {
                    PartitionLog log = partition.log(b);
                    if (log == null) {
                        continue;
                    }
                    List<Batch> now = batches(log);
                    List<Batch> seen = lastSeen.getOrDefault(b, List.of());
                    if (!powerLostSinceSeen.contains(b)) {
                        for (Batch gone : seen) {
                            if (now.contains(gone)) {
                                continue;
                            }
                            boolean explained = truncations.getOrDefault(b, List.of()).stream()
                                    .anyMatch(t -> t[0] <= gone.baseOffset() && gone.baseOffset() < t[1]);
                            assertThat(explained).as("batch %s left broker %d without a Truncated event %s", gone, b, context).isTrue();
                        }
                    }
                    lastSeen.put(b, now);
                    powerLostSinceSeen.remove(b);
                }
                return null;
            });
        }

        void checkReplicasIdentical() {
            loop.call(() -> {
                Partition partition = partition();
                PartitionLog leaderLog = partition.leaderLog();
                assertThat(leaderLog).as("a leader after healing: %s\n%s", partition, state.timeline()).isNotNull();
                List<Batch> leader = batches(leaderLog);
                for (int r : partition.isr()) {
                    assertThat(batches(partition.log(r))).as("in-sync replica %d after healing %s\n%s\n%s", r, partition,
                            schedule, state.timeline()).isEqualTo(leader);
                }
                return null;
            });
        }

        private static List<Batch> below(List<Batch> batches, long highWatermark) {
            return batches.stream().filter(b -> b.lastOffset() < highWatermark).toList();
        }

        private static Map<Long, String> values(List<Batch> batches) {
            Map<Long, String> out = new HashMap<>();
            for (Batch b : batches) {
                for (int i = 0; i < b.values().size(); i++) {
                    out.put(b.baseOffset() + i, b.values().get(i));
                }
            }
            return out;
        }

        private static List<Batch> batches(PartitionLog log) {
            List<Batch> out = new ArrayList<>();
            log.forEachBatch(batch -> {
                List<String> values = new ArrayList<>();
                for (Record r : batch) {
                    values.add(StandardCharsets.UTF_8.decode(r.value()).toString());
                }
                out.add(new Batch(batch.baseOffset(), batch.lastOffset(), batch.partitionLeaderEpoch(), values,
                        (int) batch.checksum()));
            });
            return out;
        }

        @Override
        public void close() {
            try {
                loop.call(() -> {
                    state.metadata().close();
                    return null;
                });
            } finally {
                loop.close();
                try {
                    LogFileUtils.deleteRecursively(dir);
                } catch (IOException ignored) {
                    // a temporary directory
                }
            }
        }
    }
}
