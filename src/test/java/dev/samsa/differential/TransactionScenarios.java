package dev.samsa.differential;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/** Transactions: commit, abort, what read_committed sees, fencing, offsets in a transaction, timeouts, admin views. */
final class TransactionScenarios {

    private TransactionScenarios() {
    }

    static List<Scenario> all() {
        List<Scenario> all = new ArrayList<>();
        all.add(Scenario.of("txn-commit", c -> {
            String topic = c.topic("t", 2);
            KafkaProducer<String, String> p = transactional(c, "tx");
            p.beginTransaction();
            for (int i = 0; i < 4; i++) {
                p.send(new ProducerRecord<>(topic, i % 2, "k" + i, "v" + i));
            }
            p.commitTransaction();
            p.beginTransaction();
            p.send(new ProducerRecord<>(topic, 0, "k9", "second"));
            p.commitTransaction();
            observeReads(c, topic);
        }));
        all.add(Scenario.of("txn-abort", c -> {
            String topic = c.topic("t", 2);
            KafkaProducer<String, String> p = transactional(c, "tx");
            p.beginTransaction();
            for (int i = 0; i < 4; i++) {
                p.send(new ProducerRecord<>(topic, i % 2, "k" + i, "v" + i));
            }
            p.flush();
            p.abortTransaction();
            p.beginTransaction();
            p.send(new ProducerRecord<>(topic, 1, "k9", "after-abort"));
            p.commitTransaction();
            observeReads(c, topic);
        }));
        all.add(Scenario.of("txn-open-holds-last-stable-offset", c -> {
            String topic = c.topic("t", 1);
            KafkaProducer<String, String> plain = c.producer();
            plain.send(new ProducerRecord<>(topic, 0, "before", "v")).get(30, TimeUnit.SECONDS);
            KafkaProducer<String, String> p = transactional(c, "tx");
            p.beginTransaction();
            p.send(new ProducerRecord<>(topic, 0, "in-txn", "v"));
            p.flush();
            plain.send(new ProducerRecord<>(topic, 0, "after", "v")).get(30, TimeUnit.SECONDS);
            TopicPartition tp = new TopicPartition(topic, 0);
            c.obs().put("end-committed-open", c.consumer("isolation.level", "read_committed").endOffsets(List.of(tp)).get(tp));
            c.obs().put("end-uncommitted-open", c.consumer().endOffsets(List.of(tp)).get(tp));
            c.obs().put("read-committed-open", c.readAll(topic, "read_committed"));
            p.commitTransaction();
            observeReads(c, topic);
        }));
        all.add(Scenario.of("txn-fenced-by-new-producer", c -> {
            String topic = c.topic("t", 1);
            KafkaProducer<String, String> first = transactional(c, "tx");
            first.beginTransaction();
            first.send(new ProducerRecord<>(topic, 0, "first", "v")).get(30, TimeUnit.SECONDS);
            KafkaProducer<String, String> second = transactional(c, "tx");
            c.obs().outcome("first-send-after-fence", () -> first.send(new ProducerRecord<>(topic, 0, "first2", "v"))
                    .get(30, TimeUnit.SECONDS).offset());
            c.obs().outcome("first-commit-after-fence", () -> {
                first.commitTransaction();
                return null;
            });
            second.beginTransaction();
            second.send(new ProducerRecord<>(topic, 0, "second", "v"));
            c.obs().outcome("second-commit", () -> {
                second.commitTransaction();
                return null;
            });
            c.obs().put("read-committed", c.readAll(topic, "read_committed"));
        }));
        all.add(Scenario.of("txn-send-offsets-commit-and-abort", c -> {
            String topic = c.topic("t", 1);
            String committedGroup = c.name("committed");
            String abortedGroup = c.name("aborted");
            KafkaProducer<String, String> p = transactional(c, "tx");
            TopicPartition tp = new TopicPartition(topic, 0);
            p.beginTransaction();
            p.send(new ProducerRecord<>(topic, 0, "k", "v"));
            p.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(7, "meta")), new ConsumerGroupMetadata(committedGroup));
            p.commitTransaction();
            p.beginTransaction();
            p.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(9)), new ConsumerGroupMetadata(abortedGroup));
            p.abortTransaction();
            for (String group : List.of(committedGroup, abortedGroup)) {
                Map<TopicPartition, OffsetAndMetadata> offsets = c.admin().listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                c.obs().put("offsets-" + group.substring(c.name("").length()), ScenarioContext.byPartition(offsets).entrySet()
                        .stream().map(e -> e.getKey() + ":" + e.getValue().offset() + ":" + e.getValue().metadata()).toList());
            }
        }));
        all.add(Scenario.of("txn-describe-and-list", c -> {
            String topic = c.topic("t", 2);
            String id = c.name("tx");
            KafkaProducer<String, String> p = transactional(c, "tx", "transaction.timeout.ms", 20_000);
            c.obs().put("after-init", describe(c, id));
            p.beginTransaction();
            p.send(new ProducerRecord<>(topic, 1, "k", "v")).get(30, TimeUnit.SECONDS);
            c.obs().put("ongoing", describe(c, id));
            c.obs().put("listed-ongoing", c.admin().listTransactions(new ListTransactionsOptions()).all().get(30, TimeUnit.SECONDS)
                    .stream().filter(l -> l.transactionalId().equals(id)).map(l -> l.state().toString()).toList());
            p.commitTransaction();
            ScenarioContext.await("the commit to complete", () -> describe(c, id).startsWith("CompleteCommit"));
            c.obs().put("committed", describe(c, id));
            c.obs().outcome("describe-unknown", () -> c.admin().describeTransactions(List.of(c.name("nope"))).all()
                    .get(30, TimeUnit.SECONDS));
        }));
        all.add(Scenario.of("txn-timeout-above-broker-max", c -> {
            KafkaProducer<String, String> p = c.producer("transactional.id", c.name("tx"), "transaction.timeout.ms", 1_000_000);
            c.obs().outcome("init", () -> {
                p.initTransactions();
                return null;
            });
        }));
        all.add(Scenario.of("txn-empty-commit-and-abort", c -> {
            String topic = c.topic("t", 1);
            KafkaProducer<String, String> p = transactional(c, "tx");
            p.beginTransaction();
            p.commitTransaction();
            p.beginTransaction();
            p.abortTransaction();
            observeReads(c, topic);
        }));
        all.add(Scenario.of("txn-read-committed-consumer-skips-aborted", c -> {
            String topic = c.topic("t", 1);
            KafkaProducer<String, String> p = transactional(c, "tx");
            for (int round = 0; round < 4; round++) {
                p.beginTransaction();
                p.send(new ProducerRecord<>(topic, 0, "r" + round, round % 2 == 0 ? "commit" : "abort"));
                p.flush();
                if (round % 2 == 0) {
                    p.commitTransaction();
                } else {
                    p.abortTransaction();
                }
            }
            KafkaConsumer<String, String> consumer = c.consumer("group.id", c.name("g"), "isolation.level", "read_committed");
            consumer.subscribe(List.of(topic));
            List<String> seen = new ArrayList<>();
            ScenarioContext.await("the committed records", () -> {
                consumer.poll(Duration.ofMillis(100)).forEach(r -> seen.add(ScenarioContext.describe(r)));
                return seen.size() >= 2;
            });
            consumer.commitSync();
            c.obs().put("seen", seen);
            c.obs().put("position", consumer.position(new TopicPartition(topic, 0)));
        }));
        all.add(Scenario.of("txn-timeout-aborts", c -> {
            // The coordinator aborts a transaction older than transaction.timeout.ms; with the suite's 200 ms check
            // interval (DifferentialTest.BROKER_CONFIGS) both brokers should do so within 5% of the timeout.
            String topic = c.topic("t", 1);
            long timeoutMs = 4000;
            KafkaProducer<String, String> p = transactional(c, "tx", "transaction.timeout.ms", (int) timeoutMs);
            TopicPartition tp = new TopicPartition(topic, 0);
            KafkaConsumer<String, String> committed = c.consumer("isolation.level", "read_committed");
            p.beginTransaction();
            long start = System.nanoTime();
            p.send(new ProducerRecord<>(topic, 0, "k", "v")).get(30, TimeUnit.SECONDS);
            ScenarioContext.await("the coordinator to abort", () -> committed.endOffsets(List.of(tp)).get(tp) > 0);
            c.obs().ratio("abort-after", ScenarioContext.elapsedMs(start), timeoutMs);
            c.obs().outcome("commit-after-timeout", () -> {
                p.commitTransaction();
                return null;
            });
            c.obs().put("read-committed", c.readAll(topic, "read_committed"));
            c.obs().put("end", c.consumer().endOffsets(List.of(tp)).get(tp));
        }));
        return all;
    }

    static KafkaProducer<String, String> transactional(ScenarioContext c, String id, Object... more) {
        Object[] config = new Object[more.length + 2];
        config[0] = "transactional.id";
        config[1] = c.name(id);
        System.arraycopy(more, 0, config, 2, more.length);
        KafkaProducer<String, String> p = c.producer(config);
        p.initTransactions();
        return p;
    }

    private static String describe(ScenarioContext c, String id) {
        try {
            TransactionDescription d = c.admin().describeTransactions(List.of(id)).description(id).get(30, TimeUnit.SECONDS);
            return d.state() + " timeout=" + d.transactionTimeoutMs() + " partitions="
                    + ScenarioContext.partitions(d.topicPartitions()) + " started=" + d.transactionStartTimeMs().isPresent()
                    + " epoch=" + d.producerEpoch();
        } catch (Exception e) {
            return Observation.error(e);
        }
    }

    /** Both isolation levels: the records and the end offsets each sees (the LSO for read_committed). */
    static void observeReads(ScenarioContext c, String topic) {
        c.obs().put("read-committed", c.readAll(topic, "read_committed"));
        c.obs().put("read-uncommitted", c.readAll(topic, "read_uncommitted"));
        KafkaConsumer<String, String> rc = c.consumer("isolation.level", "read_committed");
        List<TopicPartition> tps = rc.partitionsFor(topic).stream().map(p -> new TopicPartition(topic, p.partition())).toList();
        c.obs().put("end-committed", ScenarioContext.byPartition(rc.endOffsets(tps)));
        c.obs().put("end-uncommitted", ScenarioContext.byPartition(c.consumer().endOffsets(tps)));
    }
}
