package dev.samsa.differential;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.core.ConditionTimeoutException;

/**
 * What runs in the background or takes a broker down: retention, compaction, broker restarts, and group timers measured
 * as a ratio to their configured value. Last in the catalogue: Kafka's first retention check runs 30 s after it starts.
 */
final class LogAndTimerScenarios {

    private LogAndTimerScenarios() {
    }

    static List<Scenario> all() {
        List<Scenario> all = new ArrayList<>();
        all.add(Scenario.of("retention-deletes-records-stamped-long-ago", c -> {
            // Records stamped in 1970 are older than the default retention.ms (7 days) the moment they arrive; the
            // suite's log.retention.check.interval.ms is 500 ms.
            String topic = c.topic("t", 1);
            KafkaProducer<String, String> p = c.producer();
            for (int i = 0; i < 3; i++) {
                p.send(new ProducerRecord<>(topic, 0, 1_000_000L * (i + 1), "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
            KafkaConsumer<String, String> consumer = c.consumer();
            TopicPartition p0 = new TopicPartition(topic, 0);
            // Kafka's LogManager runs its first retention check 30 s after the broker starts (InitialTaskDelayMs),
            // Samsa one interval after: wait for it rather than compare when it first ran.
            // A check may fall between two of the three sends and delete the first alone: wait for all three.
            try {
                await().atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(200))
                        .until(() -> consumer.beginningOffsets(List.of(p0), ScenarioContext.WAIT).get(p0) >= 3);
            } catch (ConditionTimeoutException notDeleted) {
                // Compared as it is.
            }
            c.obs().put("beginning", consumer.beginningOffsets(List.of(p0), ScenarioContext.WAIT).get(p0));
            c.obs().put("end", consumer.endOffsets(List.of(p0), ScenarioContext.WAIT).get(p0));
            p.send(new ProducerRecord<>(topic, 0, "recent", "v")).get(30, TimeUnit.SECONDS);
            // Retention checks run meanwhile; a recent record must outlive them (1.5 s of checks every few hundred ms).
            try {
                await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                        .until(() -> consumer.beginningOffsets(List.of(p0), ScenarioContext.WAIT).get(p0) == 3);
            } catch (ConditionTimeoutException deleted) {
                // Compared as it is.
            }
            c.obs().put("beginning-after-recent", consumer.beginningOffsets(List.of(p0), ScenarioContext.WAIT).get(p0));
            c.obs().put("records", c.readAll(topic));
        }));
        all.add(Scenario.of("compaction-keeps-latest-per-key", c -> {
            String topic = c.topic("t", 1, Map.of("cleanup.policy", "compact", "segment.ms", "100",
                    "min.cleanable.dirty.ratio", "0.01", "delete.retention.ms", "86400000"));
            KafkaProducer<String, String> p = c.producer();
            for (int round = 0; round < 3; round++) {
                for (int k = 0; k < 3; k++) {
                    p.send(new ProducerRecord<>(topic, 0, "k" + k, "r" + round)).get(30, TimeUnit.SECONDS);
                }
            }
            p.send(new ProducerRecord<>(topic, 0, "k1", null)).get(30, TimeUnit.SECONDS);
            Object cleaned = c.obs().outcome("cleaned", () -> {
                try {
                    // Each "last" appended once segment.ms (100 ms) has passed rolls the segment, so that everything
                    // before it can be cleaned; the broker's own clock decides when, so keep appending until it has.
                    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() -> {
                        p.send(new ProducerRecord<>(topic, 0, "last", "x")).get(30, TimeUnit.SECONDS);
                        return c.readAll(topic).stream().noneMatch(r -> r.endsWith("=r0"));
                    });
                    return "yes";
                } catch (ConditionTimeoutException notCleaned) {
                    return "not within 30 s";
                }
            });
            Map<String, String> latest = new TreeMap<>();
            for (String r : c.readAll(topic)) {
                String kv = r.substring(r.indexOf(' ') + 1);
                latest.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }
            c.obs().put("latest", latest);
        }));
        for (String how : List.of("stop", "kill")) {
            // Slow on Kafka: a restarted node takes 20-40 s to serve again (Samsa: under a second).
            all.add(Scenario.slow("broker-" + how + "-and-restart-keeps-records-and-offsets", c -> {
                String topic = c.topic("t", 2);
                String group = c.name("g");
                KafkaProducer<String, String> p = c.producer("acks", "all");
                for (int i = 0; i < 6; i++) {
                    p.send(new ProducerRecord<>(topic, i % 2, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
                }
                KafkaConsumer<String, String> committer = c.consumer("group.id", group);
                committer.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(2, "m")));
                committer.close(Duration.ofSeconds(5));
                if ("stop".equals(how)) {
                    c.cluster().stopBroker(1);
                } else {
                    c.cluster().killBroker(1);
                }
                c.cluster().restartBroker(1);
                c.awaitLeaders(topic, 2);
                c.obs().put("records", c.readAll(topic));
                c.obs().put("offsets", GroupScenarios.offsets(c.admin().listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)));
                c.obs().outcome("produce-after-restart", () -> c.producer().send(new ProducerRecord<>(topic, 0, "k", "after"))
                        .get(30, TimeUnit.SECONDS).offset());
            }));
        }
        all.add(Scenario.slow("timer-survivor-owns-all-after-remain-in-group-close", c -> {
            // Two classic consumers share 6 partitions, session.timeout.ms=6000; one closes without leaving the group
            // (REMAIN_IN_GROUP, zero timeout). The survivor owns all 6 once the coordinator expires the silent
            // member's session and the survivor has rejoined. Auto-commit is on, as by default: the closing consumer's
            // last OffsetCommit is what Kafka counts as hearing from the member. Measured on both: ~9 s (1.5 x the
            // session timeout); before main's OffsetCommit liveness fix Samsa took ~6 s.
            String topic = c.topic("t", 6);
            String group = c.name("g");
            Object[] config = {"session.timeout.ms", 6000, "heartbeat.interval.ms", 3000, "enable.auto.commit", true};
            KafkaConsumer<String, String> a = GroupScenarios.member(c, "classic", group, "a", topic, config);
            KafkaConsumer<String, String> b = GroupScenarios.member(c, "classic", group, "b", topic, config);
            ScenarioContext.pollUntil(List.of(a, b), "3 partitions each",
                    () -> a.assignment().size() == 3 && b.assignment().size() == 3);
            b.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                    .withTimeout(Duration.ZERO));
            long start = System.nanoTime();
            ScenarioContext.pollUntil(List.of(a), "the survivor owning all 6", () -> a.assignment().size() == 6);
            long ms = ScenarioContext.elapsedMs(start);
            c.obs().ratio("survivor-owns-all", ms, 6000);
            System.out.println("timer-survivor-owns-all-after-remain-in-group-close on " + c.cluster().name() + ": " + ms + " ms");
        }));
        return all;
    }
}
