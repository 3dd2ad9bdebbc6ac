package dev.samsa.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.GroupState;
import dev.samsa.KafkaCluster;
import dev.samsa.When;
import dev.samsa.event.BrokerStopped;
import dev.samsa.event.ClusterEvent;
import dev.samsa.event.GenerationStarted;
import dev.samsa.event.GroupStateChanged;
import dev.samsa.event.RecordsAcknowledged;
import dev.samsa.event.TimedEvent;
import dev.samsa.event.Trigger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * Faults applied at the moment of an event ({@code cluster.events().on(...)}), with real clients: the fault lands in
 * the exact window a test fears, not wherever a sleep happens to put it.
 */
class EventTriggerTest {

    private static final int OFFSETS_PARTITIONS = 3;

    @Test
    void consumersCommittingAfterProcessingRecoverFromACoordinatorCrashInCompletingRebalanceWithNothingProcessedTwice() {
        String group = "billing";
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(151)
                .brokerConfig("offsets.topic.num.partitions", Integer.toString(OFFSETS_PARTITIONS))
                .topic("orders", 4, 3).start()) {
            int offsetsPartition = Utils.abs(group.hashCode()) % OFFSETS_PARTITIONS;
            AtomicInteger crashed = new AtomicInteger();
            List<String> sent = produce(cluster, "orders", 4, 25, "all");

            List<String> processed = new ArrayList<>();
            KafkaConsumer<String, String> a = consumer(cluster, group, "a");
            KafkaConsumer<String, String> b = null;
            Trigger trigger;
            try {
                // a alone processes a part; then b joins, and the group's rebalance crashes its coordinator.
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1))
                        .until(() -> processAndCommit(a, processed) >= 0 && processed.size() >= 30);
                // Armed now, so that it is b's join, not a's first one, that it interrupts.
                trigger = cluster.events().on(When.groupEntered(group, GroupState.COMPLETING_REBALANCE), () -> {
                    int coordinator = cluster.partition("__consumer_offsets", offsetsPartition).leader();
                    crashed.set(coordinator);
                    cluster.broker(coordinator).crash();
                });
                b = consumer(cluster, group, "b");
                KafkaConsumer<String, String> second = b;
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(1)).until(() -> {
                    processAndCommit(a, processed);
                    processAndCommit(second, processed);
                    return processed.size() >= sent.size();
                });
            } finally {
                a.close(Duration.ofSeconds(5));
                if (b != null) {
                    b.close(Duration.ofSeconds(5));
                }
            }

            assertThat(trigger.fired()).isEqualTo(1);
            assertThat(processed).as("every record processed exactly once; timeline:\n%s", cluster.events())
                    .doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(sent);
            List<TimedEvent> events = cluster.events().events();
            int stopped = indexOf(events, e -> e.equals(new BrokerStopped(crashed.get(), "CRASH")));
            int entered = stopped - 1;
            while (!(events.get(entered).event() instanceof GroupStateChanged c && c.state().equals("CompletingRebalance"))) {
                entered--;
            }
            assertThat(events.subList(entered + 1, stopped)).as("between the state change and the crash, only the rest "
                    + "of the step that completed the join; timeline:\n%s", cluster.events())
                    .allMatch(e -> e.event() instanceof GenerationStarted g && g.groupId().equals(group));
            assertThat(events.subList(entered, events.size()).stream().map(TimedEvent::event)
                    .filter(e -> e instanceof GenerationStarted g && g.groupId().equals(group)))
                    .as("the consumers joined again with the new coordinator").isNotEmpty();
        }
    }

    @Test
    void pausingReplicationWhenTheHighWatermarkReachesAnOffsetLeavesAnAcks1TailThatAPowerLossLosesExactly() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(152).topic("orders", 1, 3).start()) {
            int leader = cluster.partition("orders", 0).leader();
            List<Integer> followers = cluster.partition("orders", 0).replicas().stream().filter(r -> r != leader).toList();
            // At offset 100 the followers stop copying: what the leader acknowledges from then on is on it alone.
            Trigger pause = cluster.events().on(When.highWatermarkReached("orders", 0, 100),
                    () -> followers.forEach(f -> cluster.faults().pauseReplication("orders", 0, f)));

            TreeMap<Long, String> acknowledged = new TreeMap<>();
            Map<String, Object> config = cluster.producerConfig();
            config.put("acks", "1");
            config.put("enable.idempotence", "false");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
                for (int n = 0; n < 130; n++) {
                    String value = "r" + n;
                    acknowledged.put(producer.send(new ProducerRecord<>("orders", 0, value, value)).get().offset(), value);
                }
            }
            assertThat(pause.fired()).isEqualTo(1);
            long replicatedEnd = followers.stream().mapToLong(f -> cluster.partition("orders", 0).logEndOffset(f))
                    .max().orElseThrow();
            cluster.broker(leader).powerLoss();
            await().atMost(Duration.ofSeconds(10)).until(() -> cluster.partition("orders", 0).leader() > 0);
            followers.forEach(f -> cluster.faults().resumeReplication("orders", 0, f));

            Collection<String> expectedLost = acknowledged.tailMap(replicatedEnd).values();
            assertThat(replicatedEnd).as("the followers stopped at the high watermark that paused them").isBetween(100L, 129L);
            assertThat(expectedLost).hasSize(130 - (int) replicatedEnd);
            List<String> inLog = readAll(cluster, "orders");
            assertThat(inLog).as("every acknowledged record the followers had, and nothing else; timeline:\n%s",
                    cluster.events()).containsExactlyElementsOf(acknowledged.headMap(replicatedEnd).values());
        }
    }

    /**
     * {@code When.acknowledged}: the leader crashes once it has acknowledged 25 records, with a producer that keeps
     * five small requests in flight; the crash comes before the leader appends anything more, so its log ends exactly
     * where the acknowledged count that fired the trigger says.
     */
    @Test
    void aLeaderCrashedOnceItAcknowledgedACountOfRecordsHasAppendedNothingBeyondThem() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(153).topic("orders", 1, 3).start()) {
            int leader = cluster.partition("orders", 0).leader();
            AtomicLong countThatFired = new AtomicLong();
            AtomicLong logEndAtCrash = new AtomicLong();
            Trigger crash = cluster.events().on(When.acknowledged("orders", 0, 25).and(e -> {
                countThatFired.set(((RecordsAcknowledged) e).acknowledgedRecords());
                return true;
            }), () -> {
                logEndAtCrash.set(cluster.partition("orders", 0).logEndOffset(leader));
                cluster.broker(leader).crash();
            });
            Map<String, Object> config = cluster.producerConfig();
            config.put("acks", "1");
            config.put("enable.idempotence", "false");
            config.put("max.in.flight.requests.per.connection", "5");
            // Batches of one record's estimated size (a few of these small records): however fast the machine, the
            // 60 records never gather into one batch whose acknowledgement fires the trigger and is also the last one.
            // The producer could then see it and the test go on before the loop has run the crash; here the later
            // batches can only be acknowledged by the next leader, so the flush below returns after the crash.
            config.put("batch.size", "1");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
                for (int n = 0; n < 60; n++) {
                    producer.send(new ProducerRecord<>("orders", 0, "k", "r" + n));
                }
                producer.flush();
            }
            assertThat(crash.fired()).isEqualTo(1);
            assertThat(countThatFired.get()).isGreaterThanOrEqualTo(25);
            assertThat(logEndAtCrash.get()).as("records appended between the acknowledgement and the crash; timeline:\n%s",
                    cluster.events()).isEqualTo(countThatFired.get());
            assertThat(cluster.events().events(BrokerStopped.class)).containsExactly(new BrokerStopped(leader, "CRASH"));
        }
    }

    private static int processAndCommit(KafkaConsumer<String, String> consumer, List<String> processed) {
        int before = processed.size();
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(20))) {
            processed.add(r.value());
        }
        if (processed.size() > before) {
            try {
                consumer.commitSync(Duration.ofSeconds(10));
            } catch (CommitFailedException | RebalanceInProgressException e) {
                // The rebalance listener commits these before the partitions move.
            }
        }
        return processed.size() - before;
    }

    private static KafkaConsumer<String, String> consumer(KafkaCluster cluster, String group, String clientId) {
        Map<String, Object> config = cluster.consumerConfig(group);
        config.put("client.id", clientId);
        config.put("enable.auto.commit", "false");
        config.put("heartbeat.interval.ms", "100");
        config.put("max.poll.records", "5");
        config.put("partition.assignment.strategy", "org.apache.kafka.clients.consumer.RangeAssignor");
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config);
        consumer.subscribe(List.of("orders"), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                // Everything polled so far is processed: commit it before another member gets the partitions.
                consumer.commitSync(Duration.ofSeconds(10));
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            }
        });
        return consumer;
    }

    private static List<String> produce(KafkaCluster cluster, String topic, int partitions, int perPartition, String acks)
            throws RuntimeException {
        Map<String, Object> config = cluster.producerConfig();
        config.put("acks", acks);
        List<String> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            for (int p = 0; p < partitions; p++) {
                for (int n = 0; n < perPartition; n++) {
                    String value = "p" + p + "-" + n;
                    producer.send(new ProducerRecord<>(topic, p, value, value)).get();
                    sent.add(value);
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return sent;
    }

    private static List<String> readAll(KafkaCluster cluster, String topic) {
        Map<String, Object> config = cluster.consumerConfig("reader-" + topic);
        config.put("enable.auto.commit", "false");
        config.put("auto.offset.reset", "earliest");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = reader.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            reader.assign(partitions);
            reader.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = reader.endOffsets(partitions);
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                reader.poll(Duration.ofMillis(50)).forEach(r -> values.add(r.value()));
                return partitions.stream().allMatch(tp -> reader.position(tp) >= ends.get(tp));
            });
        }
        return values;
    }

    private static int indexOf(List<TimedEvent> events, java.util.function.Predicate<ClusterEvent> match) {
        for (int i = 0; i < events.size(); i++) {
            if (match.test(events.get(i).event())) {
                return i;
            }
        }
        throw new AssertionError("no such event");
    }
}
