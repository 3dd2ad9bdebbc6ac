package dev.samsa.differential;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * Three brokers, replication factor 3: ISR, min.insync.replicas, leader failover. Which broker leads differs between
 * the targets (placement is each one's own), so scenarios pick brokers by role (the leader, a follower) and record
 * counts and outcomes, not broker ids.
 */
final class ReplicationScenarios {

    private ReplicationScenarios() {
    }

    static List<Scenario> all() {
        List<Scenario> all = new ArrayList<>();
        all.add(Scenario.of("repl-describe-rf3-topic-and-cluster", c -> {
            String topic = c.topic("t", 3, 3, Map.of());
            TopicDescription d = describe(c, topic);
            c.obs().put("partitions", d.partitions().stream().map(p -> p.partition() + ":r" + p.replicas().size() + ":isr"
                    + p.isr().size() + ":leader-in-isr=" + p.isr().contains(p.leader())).toList());
            c.obs().put("leaders-spread", d.partitions().stream().map(p -> p.leader().id()).distinct().count());
            c.obs().put("nodes", c.admin().describeCluster().nodes().get(30, TimeUnit.SECONDS).stream().map(n -> n.id())
                    .sorted().toList());
            c.obs().outcome("rf-4", () -> c.topic("rf4", 1, 4, Map.of()));
        }));
        all.add(Scenario.of("repl-min-isr-2-as-followers-stop", c -> {
            String topic = c.topic("t", 1, 3, Map.of("min.insync.replicas", "2"));
            KafkaProducer<String, String> all3 = c.producer("acks", "all", "retries", 0, "enable.idempotence", false);
            KafkaProducer<String, String> one = c.producer("acks", "1", "retries", 0, "enable.idempotence", false);
            c.obs().outcome("acks-all-3-in-sync", () -> send(all3, topic, "a"));
            int leader = partition(c, topic).leader().id();
            List<Integer> followers = partition(c, topic).replicas().stream().map(n -> n.id()).filter(id -> id != leader).toList();
            c.cluster().stopBroker(followers.get(0));
            awaitIsr(c, topic, 2);
            c.obs().put("leader-kept-after-first-stop", partition(c, topic).leader().id() == leader);
            c.obs().outcome("acks-all-2-in-sync", () -> send(all3, topic, "b"));
            c.cluster().stopBroker(followers.get(1));
            awaitIsr(c, topic, 1);
            c.obs().outcome("acks-all-1-in-sync", () -> send(all3, topic, "c"));
            c.obs().outcome("acks-1-1-in-sync", () -> send(one, topic, "d"));
            c.cluster().restartBroker(followers.get(0));
            c.cluster().restartBroker(followers.get(1));
            awaitIsr(c, topic, 3);
            c.obs().outcome("acks-all-after-restarts", () -> send(all3, topic, "e"));
            c.obs().put("records", c.readAll(topic));
        }));
        all.add(Scenario.of("repl-leader-crash-fails-over", c -> {
            String topic = c.topic("t", 1, 3, Map.of("min.insync.replicas", "2"));
            KafkaProducer<String, String> p = c.producer("acks", "all", "delivery.timeout.ms", 60_000, "request.timeout.ms", 5000);
            for (int i = 0; i < 3; i++) {
                send(p, topic, "before-" + i);
            }
            int leader = partition(c, topic).leader().id();
            c.cluster().killBroker(leader);
            long killed = System.nanoTime();
            ScenarioContext.await("a new leader", () -> {
                TopicPartitionInfo info = partition(c, topic);
                return info.leader() != null && info.leader().id() != leader;
            });
            // Kafka's controller fences a broker that stopped heartbeating after broker.session.timeout.ms (9 s).
            c.obs().ratio("new-leader-after-crash", ScenarioContext.elapsedMs(killed), 9000);
            c.obs().put("isr-after-failover", partition(c, topic).isr().size());
            c.obs().outcome("acks-all-after-failover", () -> send(p, topic, "after"));
            c.cluster().restartBroker(leader);
            awaitIsr(c, topic, 3);
            c.obs().put("records", c.readAll(topic));
        }));
        all.add(Scenario.of("repl-controlled-shutdown-moves-leadership", c -> {
            String topic = c.topic("t", 1, 3, Map.of());
            TopicPartitionInfo before = partition(c, topic);
            int leader = before.leader().id();
            int preferred = before.replicas().get(0).id();
            c.obs().put("leader-is-preferred", leader == preferred);
            c.cluster().stopBroker(leader);
            TopicPartitionInfo during = partition(c, topic);
            c.obs().put("leader-moved-at-once", during.leader() != null && during.leader().id() != leader);
            c.obs().put("isr-during", during.isr().size());
            c.cluster().restartBroker(leader);
            awaitIsr(c, topic, 3);
            c.obs().put("leader-back-without-election", partition(c, topic).leader().id() == leader);
            c.obs().outcome("elect-preferred", () -> c.admin().electLeaders(org.apache.kafka.common.ElectionType.PREFERRED,
                    java.util.Set.of(new org.apache.kafka.common.TopicPartition(topic, 0))).all().get(30, TimeUnit.SECONDS));
            ScenarioContext.await("the preferred leader", () -> partition(c, topic).leader().id() == preferred);
            c.obs().put("leader-after-election-is-preferred", true);
        }));
        all.add(Scenario.of("repl-internal-topics-replicated", c -> {
            String topic = c.topic("t", 1, 3, Map.of());
            var consumer = c.consumer("group.id", c.name("g"));
            consumer.commitSync(Map.of(new org.apache.kafka.common.TopicPartition(topic, 0),
                    new org.apache.kafka.clients.consumer.OffsetAndMetadata(1)));
            var tx = TransactionScenarios.transactional(c, "tx");
            tx.beginTransaction();
            tx.send(new ProducerRecord<>(topic, 0, null, "v"));
            tx.commitTransaction();
            for (String internal : List.of("__consumer_offsets", "__transaction_state")) {
                TopicDescription d = describe(c, internal);
                c.obs().put(internal, "internal=" + d.isInternal() + " partitions=" + d.partitions().size() + " rf="
                        + d.partitions().stream().map(p -> p.replicas().size()).distinct().toList());
            }
        }));
        return all;
    }

    private static Object send(KafkaProducer<String, String> p, String topic, String value) throws Exception {
        return p.send(new ProducerRecord<>(topic, 0, null, value)).get(60, TimeUnit.SECONDS).offset();
    }

    private static TopicDescription describe(ScenarioContext c, String topic) {
        try {
            return c.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot describe " + topic, e);
        }
    }

    private static TopicPartitionInfo partition(ScenarioContext c, String topic) {
        return describe(c, topic).partitions().get(0);
    }

    private static void awaitIsr(ScenarioContext c, String topic, int size) {
        ScenarioContext.await("an ISR of " + size + " for " + topic, () -> {
            try {
                return partition(c, topic).isr().size() == size;
            } catch (RuntimeException e) {
                return false;
            }
        });
    }
}
