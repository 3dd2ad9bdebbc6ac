package dev.samsa.differential;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Consumer groups: classic (JoinGroup) groups, their states, generations and assignments, static membership, KIP-848
 * (group.protocol=consumer) groups, offsets, and the admin views of all of them. Consumers get client ids "a", "b", ...
 * so that member ids, which start with the client id, sort the same on both targets.
 */
final class GroupScenarios {

    private GroupScenarios() {
    }

    static List<Scenario> all() {
        List<Scenario> all = new ArrayList<>();
        for (String protocol : List.of("classic", "consumer")) {
            all.add(Scenario.of("group-" + protocol + "-single-member", c -> {
                String topic = c.topic("t", 3);
                String group = c.name("g");
                KafkaConsumer<String, String> a = member(c, protocol, group, "a", topic);
                ScenarioContext.pollUntil(List.of(a), "an assignment", () -> a.assignment().size() == 3);
                c.obs().put("assignment", ScenarioContext.assignments(List.of(a)));
                c.obs().put("generation", generation(protocol, a));
                c.obs().put("described", describe(c, group));
                c.obs().put("listed", listed(c, group));
            }));
            all.add(Scenario.of("group-" + protocol + "-two-members-then-one-leaves", c -> {
                String topic = c.topic("t", 4);
                String group = c.name("g");
                KafkaConsumer<String, String> a = member(c, protocol, group, "a", topic);
                ScenarioContext.pollUntil(List.of(a), "a's assignment", () -> a.assignment().size() == 4);
                KafkaConsumer<String, String> b = member(c, protocol, group, "b", topic);
                ScenarioContext.pollUntil(List.of(a, b), "two members sharing",
                        () -> a.assignment().size() == 2 && b.assignment().size() == 2);
                c.obs().put("sizes-after-join", a.assignment().size() + "+" + b.assignment().size());
                int joined = a.groupMetadata().generationId();
                c.obs().put("generations-after-join", generation(protocol, a) + "," + generation(protocol, b));
                c.obs().put("described-two", describe(c, group));
                b.close(Duration.ofSeconds(5));
                ScenarioContext.pollUntil(List.of(a), "a owning all", () -> a.assignment().size() == 4);
                c.obs().put("generation-after-leave", generation(protocol, a));
                c.obs().put("generation-grew-on-leave", a.groupMetadata().generationId() > joined);
                c.obs().put("described-one", describe(c, group));
                a.close(Duration.ofSeconds(5));
                c.obs().put("described-empty", describe(c, group));
            }));
            all.add(Scenario.of("group-" + protocol + "-commit-and-fetch-offsets", c -> {
                String topic = c.topic("t", 2);
                String group = c.name("g");
                KafkaProducer<String, String> p = c.producer();
                for (int i = 0; i < 4; i++) {
                    p.send(new ProducerRecord<>(topic, i % 2, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
                }
                KafkaConsumer<String, String> a = member(c, protocol, group, "a", topic);
                List<String> seen = new ArrayList<>();
                ScenarioContext.await("4 records", () -> {
                    a.poll(Duration.ofMillis(50)).forEach(r -> seen.add(ScenarioContext.describe(r)));
                    return seen.size() >= 4;
                });
                a.commitSync(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(2, "done-0"),
                        new TopicPartition(topic, 1), new OffsetAndMetadata(1, "")));
                c.obs().put("seen", seen.stream().sorted().toList());
                c.obs().put("committed", offsets(a.committed(java.util.Set.of(new TopicPartition(topic, 0),
                        new TopicPartition(topic, 1)))));
                c.obs().put("admin-offsets", offsets(c.admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                        .get(30, TimeUnit.SECONDS)));
                c.obs().outcome("delete-offsets-while-subscribed", () -> c.admin().deleteConsumerGroupOffsets(group,
                        java.util.Set.of(new TopicPartition(topic, 0))).all().get(30, TimeUnit.SECONDS));
                c.obs().outcome("alter-offsets-while-active", () -> c.admin().alterConsumerGroupOffsets(group,
                        Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(0))).all().get(30, TimeUnit.SECONDS));
                c.obs().outcome("delete-group-while-active", () -> c.admin().deleteConsumerGroups(List.of(group)).all()
                        .get(30, TimeUnit.SECONDS));
                a.close(Duration.ofSeconds(5));
                c.obs().outcome("alter-offsets-when-empty", () -> c.admin().alterConsumerGroupOffsets(group,
                        Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(1))).all().get(30, TimeUnit.SECONDS));
                c.obs().outcome("delete-offsets-when-empty", () -> c.admin().deleteConsumerGroupOffsets(group,
                        java.util.Set.of(new TopicPartition(topic, 1))).all().get(30, TimeUnit.SECONDS));
                c.obs().put("admin-offsets-after", offsets(c.admin().listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS)));
                c.obs().outcome("delete-group-when-empty", () -> c.admin().deleteConsumerGroups(List.of(group)).all()
                        .get(30, TimeUnit.SECONDS));
                c.obs().put("described-deleted", describe(c, group));
            }));
            all.add(Scenario.of("group-" + protocol + "-static-member-rejoins", c -> {
                String topic = c.topic("t", 2);
                String group = c.name("g");
                KafkaConsumer<String, String> a = member(c, protocol, group, "a", topic, "group.instance.id", "static-a");
                ScenarioContext.pollUntil(List.of(a), "an assignment", () -> a.assignment().size() == 2);
                int generation = a.groupMetadata().generationId();
                c.obs().put("described", describe(c, group));
                a.close(Duration.ofSeconds(5));
                c.obs().put("described-after-close", describe(c, group));
                KafkaConsumer<String, String> again = member(c, protocol, group, "a", topic, "group.instance.id", "static-a");
                Object rejoined = c.obs().outcome("rejoin", () -> {
                    ScenarioContext.pollUntil(List.of(again), "the assignment again", () -> again.assignment().size() == 2);
                    return "assigned";
                });
                if (rejoined == null) {
                    return;
                }
                c.obs().put("generation-change-on-rejoin", "classic".equals(protocol)
                        ? again.groupMetadata().generationId() - generation : again.groupMetadata().generationId() >= generation);
                c.obs().put("described-rejoined", describe(c, group));
            }));
            all.add(Scenario.of("group-" + protocol + "-static-member-duplicate-fenced", c -> {
                String topic = c.topic("t", 2);
                String group = c.name("g");
                KafkaConsumer<String, String> a = member(c, protocol, group, "a", topic, "group.instance.id", "static-a");
                ScenarioContext.pollUntil(List.of(a), "an assignment", () -> a.assignment().size() == 2);
                KafkaConsumer<String, String> b = member(c, protocol, group, "b", topic, "group.instance.id", "static-a");
                Object joined = c.obs().outcome("new-member-join", () -> {
                    ScenarioContext.pollUntil(List.of(b), "the new one's assignment", () -> b.assignment().size() == 2);
                    return "assigned";
                });
                if (joined == null) {
                    c.obs().put("described", describe(c, group));
                    return;
                }
                c.obs().outcome("old-member-poll", () -> {
                    long deadline = System.nanoTime() + 3_000_000_000L;
                    while (System.nanoTime() < deadline) {
                        a.poll(Duration.ofMillis(100));
                    }
                    return "no error";
                });
                c.obs().put("described", describe(c, group));
            }));
        }
        for (String protocol : List.of("classic", "consumer")) {
            all.add(Scenario.of("group-" + protocol + "-pattern-subscription", c -> {
                String first = c.topic("x1", 1);
                String second = c.topic("x2", 2);
                c.topic("other", 1);
                String group = c.name("g");
                KafkaConsumer<String, String> a = c.consumer("group.id", group, "group.protocol", protocol, "client.id", "a",
                        "metadata.max.age.ms", 1000);
                a.subscribe(java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(c.name("x")) + ".*"));
                ScenarioContext.pollUntil(List.of(a), "the pattern's partitions", () -> a.assignment().size() == 3);
                c.obs().put("assigned", a.assignment().stream().map(TopicPartition::toString).sorted().toList());
                String third = c.topic("x3", 1);
                ScenarioContext.pollUntil(List.of(a), "a new matching topic", () -> a.assignment().size() == 4);
                c.obs().put("assigned-after-new-topic", a.assignment().stream().map(TopicPartition::toString).sorted().toList());
                c.obs().put("described", describe(c, group));
            }));
            all.add(Scenario.of("group-" + protocol + "-subscription-change", c -> {
                String first = c.topic("a", 2);
                String second = c.topic("b", 1);
                String group = c.name("g");
                KafkaConsumer<String, String> a = member(c, protocol, group, "a", first);
                ScenarioContext.pollUntil(List.of(a), "the first topic", () -> a.assignment().size() == 2);
                a.subscribe(List.of(second));
                ScenarioContext.pollUntil(List.of(a), "the second topic", () -> a.assignment().size() == 1
                        && a.assignment().iterator().next().topic().equals(second));
                a.subscribe(List.of(first, second));
                ScenarioContext.pollUntil(List.of(a), "both topics", () -> a.assignment().size() == 3);
                c.obs().put("assigned", a.assignment().stream().map(TopicPartition::toString).sorted().toList());
                c.obs().put("generation", generation(protocol, a));
                c.obs().put("described", describe(c, group));
            }));
        }
        all.add(Scenario.of("group-classic-cooperative-sticky", c -> {
            String topic = c.topic("t", 4);
            String group = c.name("g");
            Object[] cooperative = {"partition.assignment.strategy",
                "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"};
            KafkaConsumer<String, String> a = member(c, "classic", group, "a", topic, cooperative);
            ScenarioContext.pollUntil(List.of(a), "a's assignment", () -> a.assignment().size() == 4);
            KafkaConsumer<String, String> b = member(c, "classic", group, "b", topic, cooperative);
            ScenarioContext.pollUntil(List.of(a, b), "two members sharing",
                    () -> a.assignment().size() == 2 && b.assignment().size() == 2);
            c.obs().put("assignment", ScenarioContext.assignments(List.of(a, b)));
            c.obs().put("generations", a.groupMetadata().generationId() + "," + b.groupMetadata().generationId());
            c.obs().put("described", describe(c, group));
        }));
        all.add(Scenario.of("group-classic-range-assignment-by-member-id", c -> {
            String topic = c.topic("t", 5);
            String group = c.name("g");
            KafkaConsumer<String, String> a = member(c, "classic", group, "a", topic);
            KafkaConsumer<String, String> b = member(c, "classic", group, "b", topic);
            ScenarioContext.pollUntil(List.of(a, b), "5 partitions over two members",
                    () -> a.assignment().size() + b.assignment().size() == 5 && !b.assignment().isEmpty()
                            && !a.assignment().isEmpty());
            c.obs().put("assignment", ScenarioContext.assignments(List.of(a, b)));
        }));
        all.add(Scenario.of("group-consumer-unknown-remote-assignor", c -> {
            String topic = c.topic("t", 1);
            KafkaConsumer<String, String> a = member(c, "consumer", c.name("g"), "a", topic, "group.remote.assignor", "nope");
            c.obs().outcome("poll", () -> {
                long deadline = System.nanoTime() + 3_000_000_000L;
                while (System.nanoTime() < deadline && a.assignment().isEmpty()) {
                    a.poll(Duration.ofMillis(100));
                }
                return a.assignment().size();
            });
        }));
        all.add(Scenario.slow("group-consumer-range-remote-assignor", c -> {
            String topic = c.topic("t", 3);
            String group = c.name("g");
            KafkaConsumer<String, String> a = member(c, "consumer", group, "a", topic, "group.remote.assignor", "range");
            ScenarioContext.pollUntil(List.of(a), "an assignment", () -> a.assignment().size() == 3);
            c.obs().put("described", describe(c, group));
        }));
        all.add(Scenario.of("group-classic-session-timeout-below-minimum", c -> {
            String topic = c.topic("t", 1);
            KafkaConsumer<String, String> a = member(c, "classic", c.name("g"), "a", topic, "session.timeout.ms", 1000,
                    "heartbeat.interval.ms", 300);
            c.obs().outcome("poll", () -> {
                long deadline = System.nanoTime() + 3_000_000_000L;
                while (System.nanoTime() < deadline && a.assignment().isEmpty()) {
                    a.poll(Duration.ofMillis(100));
                }
                return a.assignment().size();
            });
        }));
        all.add(Scenario.of("group-classic-joins-consumer-group", c -> {
            // KIP-848's online migration: a classic member joins a group of the consumer protocol
            // (group.consumer.migration.policy=bidirectional, Kafka's default).
            String topic = c.topic("t", 4);
            String group = c.name("g");
            KafkaConsumer<String, String> a = member(c, "consumer", group, "a", topic);
            ScenarioContext.pollUntil(List.of(a), "a's assignment", () -> a.assignment().size() == 4);
            KafkaConsumer<String, String> b = member(c, "classic", group, "b", topic);
            ScenarioContext.pollUntil(List.of(a, b), "two members sharing",
                    () -> a.assignment().size() == 2 && b.assignment().size() == 2);
            c.obs().put("described", describe(c, group));
        }));
        all.add(Scenario.slow("group-describe-and-delete-unknown", c -> {
            String group = c.name("nope");
            c.obs().put("described", describe(c, group));
            c.obs().outcome("delete", () -> c.admin().deleteConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS));
            c.obs().outcome("offsets", () -> offsets(c.admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS)));
        }));
        all.add(Scenario.of("group-offsets-for-unknown-topic", c -> {
            String group = c.name("g");
            TopicPartition unknown = new TopicPartition(c.name("missing"), 0);
            c.obs().outcome("alter", () -> c.admin().alterConsumerGroupOffsets(group, Map.of(unknown, new OffsetAndMetadata(3)))
                    .all().get(30, TimeUnit.SECONDS));
            c.obs().outcome("list", () -> offsets(c.admin().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS)));
            KafkaConsumer<String, String> simple = c.consumer("group.id", group);
            c.obs().outcome("commit-sync", () -> {
                simple.commitSync(Map.of(unknown, new OffsetAndMetadata(5)), Duration.ofSeconds(3));
                return null;
            });
        }));
        all.add(Scenario.of("group-simple-consumer-commits-without-joining", c -> {
            String topic = c.topic("t", 1);
            String group = c.name("g");
            KafkaConsumer<String, String> simple = c.consumer("group.id", group);
            TopicPartition tp = new TopicPartition(topic, 0);
            simple.assign(List.of(tp));
            simple.commitSync(Map.of(tp, new OffsetAndMetadata(4, "m")));
            c.obs().put("committed", offsets(simple.committed(java.util.Set.of(tp))));
            c.obs().put("described", describe(c, group));
            c.obs().put("listed", listed(c, group));
        }));
        all.add(Scenario.of("group-classic-remain-in-group-close", c -> {
            String topic = c.topic("t", 2);
            String group = c.name("g");
            KafkaConsumer<String, String> a = member(c, "classic", group, "a", topic);
            ScenarioContext.pollUntil(List.of(a), "an assignment", () -> a.assignment().size() == 2);
            a.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                    .withTimeout(Duration.ZERO));
            c.obs().put("described-right-after-close", describe(c, group));
        }));
        return all;
    }

    /** The classic generation as is; a KIP-848 member epoch only as "n>0" (see {@link #relative}). */
    static String generation(String protocol, KafkaConsumer<?, ?> consumer) {
        int g = consumer.groupMetadata().generationId();
        return "classic".equals(protocol) ? Integer.toString(g) : (g > 0 ? "n>0" : Integer.toString(g));
    }

    /** A consumer of {@code protocol} ("classic" or "consumer") in {@code group}, subscribed to {@code topic}. */
    static KafkaConsumer<String, String> member(ScenarioContext c, String protocol, String group, String clientId,
            String topic, Object... more) {
        List<Object> config = new ArrayList<>(List.of("group.id", group, "group.protocol", protocol, "client.id", clientId));
        if ("classic".equals(protocol)) {
            // A classic member learns of a rebalance from its next heartbeat: half a second instead of 3 keeps joins short.
            config.addAll(List.of("heartbeat.interval.ms", 500));
        }
        config.addAll(List.of(more));
        KafkaConsumer<String, String> consumer = c.consumer(config.toArray());
        consumer.subscribe(List.of(topic));
        return consumer;
    }

    /** The admin view of a group, as one line: state, type, assignor, epochs and each member (sorted by client id). */
    static String describe(ScenarioContext c, String group) {
        try {
            ConsumerGroupDescription d = c.admin().describeConsumerGroups(List.of(group)).describedGroups().get(group)
                    .get(30, TimeUnit.SECONDS);
            StringBuilder s = new StringBuilder().append(d.groupState()).append(" type=").append(d.type())
                    .append(" assignor=").append(d.partitionAssignor()).append(" simple=").append(d.isSimpleConsumerGroup())
                    .append(" targetEpoch=").append(relative(d.targetAssignmentEpoch(), d.groupEpoch()));
            d.members().stream().sorted(Comparator.comparing(MemberDescription::clientId)).forEach(m -> s.append(" [")
                    .append(m.clientId()).append(m.groupInstanceId().map(i -> "/" + i).orElse(""))
                    .append(" assigned=").append(ScenarioContext.partitions(m.assignment().topicPartitions()))
                    .append(" target=").append(m.targetAssignment().map(t -> ScenarioContext.partitions(t.topicPartitions())
                            .toString()).orElse("-"))
                    .append(" epoch=").append(relative(m.memberEpoch(), d.groupEpoch()))
                    .append(" upgraded=").append(m.upgraded().map(String::valueOf).orElse("-")).append(']'));
            return s.toString();
        } catch (Exception e) {
            return Observation.error(e);
        }
    }

    /**
     * An epoch as "group" when it equals the group epoch: Kafka bumps a KIP-848 group's epoch at moments that depend
     * on its metadata updates, so absolute epochs are not compared, only whether members caught up with the group.
     */
    private static String relative(java.util.Optional<Integer> epoch, java.util.Optional<Integer> groupEpoch) {
        if (epoch.isEmpty()) {
            return "-";
        }
        return epoch.equals(groupEpoch) ? "group" : (epoch.get() < 0 ? epoch.get().toString() : "behind");
    }

    static String listed(ScenarioContext c, String group) throws Exception {
        return c.admin().listGroups(new ListGroupsOptions()).all().get(30, TimeUnit.SECONDS).stream()
                .filter(l -> l.groupId().equals(group))
                .map(l -> l.type().map(String::valueOf).orElse("-") + " " + l.protocol() + " "
                        + l.groupState().map(String::valueOf).orElse("-"))
                .toList().toString();
    }

    static List<String> offsets(Map<TopicPartition, OffsetAndMetadata> offsets) {
        return offsets.entrySet().stream().sorted(Comparator.comparing(e -> e.getKey().toString()))
                .map(e -> e.getKey() + "=" + (e.getValue() == null ? "null" : e.getValue().offset() + " '"
                        + e.getValue().metadata() + "' epoch=" + e.getValue().leaderEpoch().isPresent()))
                .toList();
    }
}
