package dev.samsa.differential;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;

/** Produce and fetch: every acks with every compression, record limits, timestamps, offsets out of range. */
final class ProduceScenarios {

    private ProduceScenarios() {
    }

    static List<Scenario> all() {
        List<Scenario> all = new ArrayList<>();
        for (String acks : List.of("0", "1", "all")) {
            for (String compression : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
                String name = "produce-acks" + acks + "-" + compression;
                // mvn verify runs every compression with acks=1 and every acks uncompressed; the full run all 15.
                boolean everyBuild = acks.equals("1") || compression.equals("none");
                all.add(everyBuild ? Scenario.of(name, c -> produceAndFetch(c, acks, compression))
                        : Scenario.slow(name, c -> produceAndFetch(c, acks, compression)));
            }
        }
        all.add(Scenario.of("produce-record-too-large-for-broker", c -> {
            String topic = c.topic("t", 1);
            KafkaProducer<String, String> p = c.producer("max.request.size", 4 << 20, "retries", 0,
                    "enable.idempotence", false);
            c.obs().outcome("send", () -> p.send(new ProducerRecord<>(topic, "x".repeat(1_100_000))).get(30, TimeUnit.SECONDS));
            c.obs().put("records", c.readAll(topic));
        }));
        all.add(Scenario.of("produce-record-too-large-for-topic", c -> {
            String topic = c.topic("t", 1, Map.of("max.message.bytes", "1000"));
            KafkaProducer<String, String> p = c.producer("retries", 0, "enable.idempotence", false);
            c.obs().outcome("small", () -> p.send(new ProducerRecord<>(topic, "k", "v".repeat(100))).get(30, TimeUnit.SECONDS).offset());
            c.obs().outcome("large", () -> p.send(new ProducerRecord<>(topic, "k", "v".repeat(2000))).get(30, TimeUnit.SECONDS).offset());
        }));
        all.add(Scenario.of("produce-min-isr-not-met", c -> {
            String topic = c.topic("t", 1, Map.of("min.insync.replicas", "2"));
            KafkaProducer<String, String> all1 = c.producer("acks", "all", "retries", 0, "enable.idempotence", false);
            c.obs().outcome("acks-all", () -> all1.send(new ProducerRecord<>(topic, "v")).get(30, TimeUnit.SECONDS).offset());
            KafkaProducer<String, String> one = c.producer("acks", "1", "retries", 0, "enable.idempotence", false);
            c.obs().outcome("acks-1", () -> one.send(new ProducerRecord<>(topic, "v")).get(30, TimeUnit.SECONDS).offset());
            c.obs().put("records", c.readAll(topic));
        }));
        all.add(Scenario.of("produce-invalid-topic-name", c -> {
            KafkaProducer<String, String> p = c.producer("max.block.ms", 5000);
            c.obs().outcome("send", () -> p.send(new ProducerRecord<>("bad name!", "v")).get(30, TimeUnit.SECONDS).offset());
        }));
        all.add(Scenario.of("produce-auto-creates-topic", c -> {
            String topic = c.name("auto");
            KafkaProducer<String, String> p = c.producer();
            c.obs().outcome("send", () -> p.send(new ProducerRecord<>(topic, "v")).get(30, TimeUnit.SECONDS).offset());
            var d = c.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
            c.obs().put("partitions", d.partitions().size());
            c.obs().put("replicas", d.partitions().get(0).replicas().size());
        }));
        all.add(Scenario.of("produce-create-time-kept", c -> {
            String topic = c.topic("t", 1);
            KafkaProducer<String, String> p = c.producer();
            long ts = System.currentTimeMillis() - 60_000;
            p.send(new ProducerRecord<>(topic, 0, ts, "k", "v")).get(30, TimeUnit.SECONDS);
            ConsumerRecord<String, String> r = first(c, topic);
            c.obs().put("timestamp-type", r.timestampType());
            c.obs().put("timestamp-kept", r.timestamp() == ts);
        }));
        all.add(Scenario.of("produce-log-append-time", c -> {
            String topic = c.topic("t", 1, Map.of("message.timestamp.type", "LogAppendTime"));
            KafkaProducer<String, String> p = c.producer();
            long ts = System.currentTimeMillis() - 60_000;
            RecordMetadata m = p.send(new ProducerRecord<>(topic, 0, ts, "k", "v")).get(30, TimeUnit.SECONDS);
            ConsumerRecord<String, String> r = first(c, topic);
            c.obs().put("timestamp-type", r.timestampType());
            c.obs().put("timestamp-replaced", r.timestamp() > ts + 30_000);
            c.obs().put("ack-timestamp-is-broker-time", m.timestamp() == r.timestamp());
        }));
        all.add(Scenario.slow("produce-timestamp-too-old", c -> {
            String topic = c.topic("t", 1, Map.of("message.timestamp.before.max.ms", "3600000"));
            KafkaProducer<String, String> p = c.producer("retries", 0, "enable.idempotence", false);
            long old = System.currentTimeMillis() - 86_400_000L;
            c.obs().outcome("old", () -> p.send(new ProducerRecord<>(topic, 0, old, "k", "v")).get(30, TimeUnit.SECONDS).offset());
            long future = System.currentTimeMillis() + 86_400_000L;
            c.obs().outcome("future", () -> p.send(new ProducerRecord<>(topic, 0, future, "k", "v")).get(30, TimeUnit.SECONDS).offset());
        }));
        all.add(Scenario.of("fetch-offset-out-of-range-no-reset", c -> {
            String topic = c.topic("t", 1);
            send(c, topic, 3);
            KafkaConsumer<String, String> consumer = c.consumer("auto.offset.reset", "none");
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seek(tp, 100);
            c.obs().outcome("poll", () -> {
                long deadline = System.nanoTime() + 4_000_000_000L;
                while (System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(100));
                }
                return "no error";
            });
        }));
        all.add(Scenario.of("fetch-offset-out-of-range-resets-earliest", c -> {
            String topic = c.topic("t", 1);
            send(c, topic, 3);
            KafkaConsumer<String, String> consumer = c.consumer("auto.offset.reset", "earliest");
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seek(tp, 100);
            List<String> seen = new ArrayList<>();
            ScenarioContext.await("records after a reset", () -> {
                consumer.poll(Duration.ofMillis(100)).forEach(r -> seen.add(ScenarioContext.describe(r)));
                return seen.size() >= 3;
            });
            c.obs().put("records", seen);
        }));
        all.add(Scenario.of("fetch-no-committed-offset-none", c -> {
            String topic = c.topic("t", 1);
            send(c, topic, 2);
            KafkaConsumer<String, String> consumer = c.consumer("group.id", c.name("g"), "auto.offset.reset", "none");
            consumer.subscribe(List.of(topic));
            c.obs().outcome("poll", () -> {
                long deadline = System.nanoTime() + 4_000_000_000L;
                while (System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(100));
                }
                return "no error";
            });
        }));
        all.add(Scenario.of("fetch-seek-into-compressed-batch", c -> {
            String topic = c.topic("t", 1);
            KafkaProducer<String, String> p = c.producer("compression.type", "gzip", "linger.ms", 100);
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                sent.add(p.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)));
            }
            for (Future<RecordMetadata> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
            KafkaConsumer<String, String> consumer = c.consumer("max.poll.records", 3);
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seek(tp, 5);
            List<String> seen = new ArrayList<>();
            ScenarioContext.await("records from offset 5", () -> {
                consumer.poll(Duration.ofMillis(100)).forEach(r -> seen.add(ScenarioContext.describe(r)));
                return seen.size() >= 5;
            });
            c.obs().put("records", seen);
        }));
        all.add(Scenario.of("fetch-end-offsets-and-offsets-for-times", c -> {
            String topic = c.topic("t", 2);
            KafkaProducer<String, String> p = c.producer();
            long base = System.currentTimeMillis() - 3_600_000L;
            for (int i = 0; i < 6; i++) {
                p.send(new ProducerRecord<>(topic, i % 2, base + 1000L * (i + 1), "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
            KafkaConsumer<String, String> consumer = c.consumer();
            TopicPartition p0 = new TopicPartition(topic, 0);
            TopicPartition p1 = new TopicPartition(topic, 1);
            c.obs().put("beginning", ScenarioContext.byPartition(consumer.beginningOffsets(List.of(p0, p1), ScenarioContext.WAIT)));
            c.obs().put("end", ScenarioContext.byPartition(consumer.endOffsets(List.of(p0, p1), ScenarioContext.WAIT)));
            var forTime = consumer.offsetsForTimes(Map.of(p0, base + 2500, p1, base + 2500), ScenarioContext.WAIT);
            c.obs().put("for-time-2500", ScenarioContext.byPartition(forTime).entrySet().stream()
                    .map(e -> e.getKey() + ":" + e.getValue().offset() + "@" + (e.getValue().timestamp() - base)).toList());
            c.obs().put("for-time-after-last", String.valueOf(consumer.offsetsForTimes(Map.of(p0, base + 9000),
                    ScenarioContext.WAIT).get(p0)));
        }));
        all.add(Scenario.of("fetch-max-poll-records", c -> {
            String topic = c.topic("t", 1);
            send(c, topic, 10);
            KafkaConsumer<String, String> consumer = c.consumer("max.poll.records", 4);
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<Integer> sizes = new ArrayList<>();
            ScenarioContext.await("10 records", () -> {
                int n = consumer.poll(Duration.ofMillis(100)).count();
                if (n > 0) {
                    sizes.add(n);
                }
                return sizes.stream().mapToInt(Integer::intValue).sum() >= 10;
            });
            c.obs().put("poll-sizes", sizes);
        }));
        all.add(Scenario.of("produce-headers-null-key-null-value", c -> {
            String topic = c.topic("t", 1);
            KafkaProducer<String, String> p = c.producer();
            RecordHeaders headers = new RecordHeaders();
            headers.add("a", "1".getBytes(StandardCharsets.UTF_8));
            headers.add("a", "2".getBytes(StandardCharsets.UTF_8));
            headers.add("empty", new byte[0]);
            headers.add("nothing", null);
            p.send(new ProducerRecord<>(topic, 0, null, null, "no-key", headers)).get(30, TimeUnit.SECONDS);
            p.send(new ProducerRecord<>(topic, 0, "tombstone", null)).get(30, TimeUnit.SECONDS);
            p.send(new ProducerRecord<>(topic, 0, "", "")).get(30, TimeUnit.SECONDS);
            c.obs().put("records", c.readAll(topic));
        }));
        return all;
    }

    /** Ten keyed records, some with headers and one tombstone, to two partitions; then what the acks said and a read. */
    private static void produceAndFetch(ScenarioContext c, String acks, String compression) throws Exception {
        String topic = c.topic("t", 2);
        KafkaProducer<String, String> p = c.producer("acks", acks, "compression.type", compression, "linger.ms", 20,
                "enable.idempotence", "all".equals(acks));
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ProducerRecord<String, String> r = new ProducerRecord<>(topic, i % 2, "k" + i, i == 7 ? null : "value-" + i);
            if (i % 3 == 0) {
                r.headers().add("h", ("x" + i).getBytes(StandardCharsets.UTF_8));
            }
            sent.add(p.send(r));
        }
        List<String> acked = new ArrayList<>();
        for (Future<RecordMetadata> f : sent) {
            RecordMetadata m = f.get(30, TimeUnit.SECONDS);
            acked.add(m.partition() + "/" + m.offset() + (m.hasTimestamp() ? "" : " no-ts"));
        }
        c.obs().put("acked", acked);
        if ("0".equals(acks)) {
            ScenarioContext.await("10 records", () -> {
                var end = c.consumer().endOffsets(List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1)));
                return end.values().stream().mapToLong(Long::longValue).sum() >= 10;
            });
        }
        c.obs().put("records", c.readAll(topic));
    }

    private static void send(ScenarioContext c, String topic, int n) throws Exception {
        KafkaProducer<String, String> p = c.producer();
        for (int i = 0; i < n; i++) {
            p.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
        }
    }

    private static ConsumerRecord<String, String> first(ScenarioContext c, String topic) {
        KafkaConsumer<String, String> consumer = c.consumer();
        TopicPartition tp = new TopicPartition(topic, 0);
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        List<ConsumerRecord<String, String>> seen = new ArrayList<>();
        ScenarioContext.await("a record of " + topic, () -> {
            consumer.poll(Duration.ofMillis(100)).forEach(seen::add);
            return !seen.isEmpty();
        });
        return seen.get(0);
    }
}
