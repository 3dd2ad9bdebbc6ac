package dev.samsa.differential;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.awaitility.core.ConditionTimeoutException;

/** The admin APIs: topics, partitions, configs (values and sources), offsets, records, the cluster. */
final class AdminScenarios {

    private AdminScenarios() {
    }

    private static final List<String> TOPIC_KEYS = List.of("cleanup.policy", "compression.type", "max.message.bytes",
            "message.timestamp.type", "min.insync.replicas", "retention.bytes", "retention.ms", "segment.bytes",
            "segment.ms", "unclean.leader.election.enable", "delete.retention.ms", "min.cleanable.dirty.ratio");

    private static final List<String> BROKER_KEYS = List.of("auto.create.topics.enable", "group.initial.rebalance.delay.ms",
            "log.retention.hours", "log.retention.ms", "message.max.bytes", "num.partitions", "offsets.topic.num.partitions",
            "default.replication.factor", "log.cleaner.backoff.ms", "group.min.session.timeout.ms",
            "transaction.max.timeout.ms", "log.segment.bytes", "min.insync.replicas");

    static List<Scenario> all() {
        List<Scenario> all = new ArrayList<>();
        all.add(Scenario.of("admin-create-and-describe-topic", c -> {
            String topic = c.name("t");
            var created = c.admin().createTopics(List.of(new NewTopic(topic, 3, (short) 1)
                    .configs(Map.of("retention.ms", "3600000", "cleanup.policy", "compact"))));
            created.all().get(30, TimeUnit.SECONDS);
            c.obs().put("created-partitions", created.numPartitions(topic).get());
            c.obs().put("created-rf", created.replicationFactor(topic).get());
            c.obs().put("created-configs", entries(created.config(topic).get(), List.of("retention.ms", "cleanup.policy",
                    "segment.bytes")));
            c.awaitLeaders(topic, 3);
            TopicDescription d = c.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
            c.obs().put("described", d.name() + " internal=" + d.isInternal() + " partitions=" + d.partitions().stream()
                    .map(p -> p.partition() + ":r" + p.replicas().size() + ":isr" + p.isr().size()).toList());
            c.obs().put("listed", c.admin().listTopics().names().get(30, TimeUnit.SECONDS).contains(topic));
        }));
        all.add(Scenario.of("admin-create-topic-errors", c -> {
            String topic = c.topic("t", 1);
            c.obs().outcome("exists", () -> create(c, new NewTopic(topic, 1, (short) 1)));
            c.obs().outcome("zero-partitions", () -> create(c, new NewTopic(c.name("zero"), 0, (short) 1)));
            c.obs().outcome("rf-above-brokers", () -> create(c, new NewTopic(c.name("rf"), 1, (short) 2)));
            c.obs().outcome("bad-config-value", () -> create(c, new NewTopic(c.name("badv"), 1, (short) 1)
                    .configs(Map.of("retention.ms", "soon"))));
            c.obs().outcome("unknown-config", () -> create(c, new NewTopic(c.name("unk"), 1, (short) 1)
                    .configs(Map.of("no.such.config", "1"))));
            c.obs().outcome("bad-name", () -> create(c, new NewTopic("bad name!", 1, (short) 1)));
            c.obs().outcome("dot-name", () -> create(c, new NewTopic("..", 1, (short) 1)));
            c.obs().outcome("long-name", () -> create(c, new NewTopic("x".repeat(250), 1, (short) 1)));
            c.obs().outcome("segment-bytes-too-small", () -> create(c, new NewTopic(c.name("seg"), 1, (short) 1)
                    .configs(Map.of("segment.bytes", "1000"))));
            c.obs().outcome("validate-only", () -> {
                c.admin().createTopics(List.of(new NewTopic(c.name("vo"), 2, (short) 1)), new CreateTopicsOptions().validateOnly(true))
                        .all().get(30, TimeUnit.SECONDS);
                return c.admin().listTopics().names().get(30, TimeUnit.SECONDS).contains(c.name("vo"));
            });
        }));
        all.add(Scenario.of("admin-create-partitions", c -> {
            String topic = c.topic("t", 1);
            c.obs().outcome("grow", () -> c.admin().createPartitions(Map.of(topic, NewPartitions.increaseTo(3))).all()
                    .get(30, TimeUnit.SECONDS));
            c.awaitLeaders(topic, 3);
            c.obs().outcome("same", () -> c.admin().createPartitions(Map.of(topic, NewPartitions.increaseTo(3))).all()
                    .get(30, TimeUnit.SECONDS));
            c.obs().outcome("shrink", () -> c.admin().createPartitions(Map.of(topic, NewPartitions.increaseTo(2))).all()
                    .get(30, TimeUnit.SECONDS));
            c.obs().outcome("unknown-topic", () -> c.admin().createPartitions(Map.of(c.name("nope"), NewPartitions.increaseTo(2)))
                    .all().get(30, TimeUnit.SECONDS));
            c.obs().put("partitions", c.admin().describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic).partitions().size());
        }));
        all.add(Scenario.of("admin-delete-topic", c -> {
            String topic = c.topic("t", 2);
            c.obs().outcome("delete", () -> c.admin().deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS));
            ScenarioContext.await("the topic to go", () -> {
                try {
                    return !c.admin().listTopics().names().get(30, TimeUnit.SECONDS).contains(topic);
                } catch (Exception e) {
                    return false;
                }
            });
            c.obs().outcome("describe-deleted", () -> c.admin().describeTopics(List.of(topic)).allTopicNames()
                    .get(30, TimeUnit.SECONDS));
            c.obs().outcome("delete-again", () -> c.admin().deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS));
            c.obs().outcome("delete-internal", () -> c.admin().deleteTopics(List.of("__consumer_offsets")).all()
                    .get(30, TimeUnit.SECONDS));
        }));
        all.add(Scenario.of("admin-describe-topic-configs", c -> {
            String topic = c.topic("t", 1, Map.of("retention.ms", "3600000", "max.message.bytes", "2000"));
            Config config = c.admin().describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, topic))).all()
                    .get(30, TimeUnit.SECONDS).values().iterator().next();
            c.obs().put("entries", entries(config, TOPIC_KEYS));
            c.obs().put("names", config.entries().stream().map(ConfigEntry::name).sorted().toList());
        }));
        all.add(Scenario.of("admin-describe-broker-configs", c -> {
            Config config = c.admin().describeConfigs(List.of(new ConfigResource(ConfigResource.Type.BROKER, "1"))).all()
                    .get(30, TimeUnit.SECONDS).values().iterator().next();
            c.obs().put("entries", entries(config, BROKER_KEYS));
        }));
        all.add(Scenario.of("admin-alter-topic-configs", c -> {
            String topic = c.topic("t", 1);
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            c.obs().outcome("set", () -> alter(c, resource, new AlterConfigOp(new ConfigEntry("retention.ms", "60000"),
                    AlterConfigOp.OpType.SET)));
            c.obs().outcome("append", () -> alter(c, resource, new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"),
                    AlterConfigOp.OpType.APPEND)));
            c.obs().put("after-set", entries(describeOnce(c, resource, config -> value(config, "cleanup.policy").contains("compact")),
                    List.of("retention.ms", "cleanup.policy")));
            c.obs().outcome("delete", () -> alter(c, resource, new AlterConfigOp(new ConfigEntry("retention.ms", ""),
                    AlterConfigOp.OpType.DELETE)));
            c.obs().outcome("subtract", () -> alter(c, resource, new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"),
                    AlterConfigOp.OpType.SUBTRACT)));
            c.obs().put("after-delete", entries(describeOnce(c, resource, config -> !value(config, "cleanup.policy").contains("compact")),
                    List.of("retention.ms", "cleanup.policy")));
            c.obs().outcome("bad-value", () -> alter(c, resource, new AlterConfigOp(new ConfigEntry("retention.ms", "soon"),
                    AlterConfigOp.OpType.SET)));
            c.obs().outcome("unknown-name", () -> alter(c, resource, new AlterConfigOp(new ConfigEntry("no.such", "1"),
                    AlterConfigOp.OpType.SET)));
            c.obs().outcome("unknown-topic", () -> alter(c, new ConfigResource(ConfigResource.Type.TOPIC, c.name("nope")),
                    new AlterConfigOp(new ConfigEntry("retention.ms", "1"), AlterConfigOp.OpType.SET)));
            c.obs().outcome("append-to-non-list", () -> alter(c, resource, new AlterConfigOp(new ConfigEntry("retention.ms", "1"),
                    AlterConfigOp.OpType.APPEND)));
        }));
        all.add(Scenario.of("admin-alter-broker-config-cluster-default", c -> {
            ConfigResource cluster = new ConfigResource(ConfigResource.Type.BROKER, "");
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "1");
            c.obs().outcome("set", () -> alter(c, cluster, new AlterConfigOp(new ConfigEntry("log.cleaner.backoff.ms", "600"),
                    AlterConfigOp.OpType.SET)));
            c.obs().put("after-set", entries(describeOnce(c, broker, config -> value(config, "log.cleaner.backoff.ms").equals("600")),
                    List.of("log.cleaner.backoff.ms")));
            c.obs().outcome("delete", () -> alter(c, cluster, new AlterConfigOp(new ConfigEntry("log.cleaner.backoff.ms", ""),
                    AlterConfigOp.OpType.DELETE)));
            c.obs().put("after-delete", entries(describeOnce(c, broker, config -> !value(config, "log.cleaner.backoff.ms").equals("600")),
                    List.of("log.cleaner.backoff.ms")));
            c.obs().outcome("read-only", () -> alter(c, broker, new AlterConfigOp(new ConfigEntry("offsets.topic.num.partitions",
                    "7"), AlterConfigOp.OpType.SET)));
        }));
        all.add(Scenario.of("admin-list-offsets", c -> {
            String topic = c.topic("t", 1);
            KafkaProducer<String, String> p = c.producer();
            long base = System.currentTimeMillis() - 3_600_000L;
            long[] stamps = {3000, 1000, 5000, 2000, 4000};
            for (long ts : stamps) {
                p.send(new ProducerRecord<>(topic, 0, base + ts, "k", "v")).get(30, TimeUnit.SECONDS);
            }
            TopicPartition tp = new TopicPartition(topic, 0);
            // What the admin client retries (a partition it cannot find) ends in its TimeoutException after 3 s.
            var admin = c.admin("default.api.timeout.ms", 3000, "request.timeout.ms", 3000);
            Map<String, OffsetSpec> specs = Map.of("earliest", OffsetSpec.earliest(), "latest", OffsetSpec.latest(),
                    "max-timestamp", OffsetSpec.maxTimestamp(), "for-1500", OffsetSpec.forTimestamp(base + 1500),
                    "for-9999", OffsetSpec.forTimestamp(base + 9999), "earliest-local", OffsetSpec.earliestLocal(),
                    "latest-tiered", OffsetSpec.latestTiered());
            for (var e : specs.entrySet()) {
                c.obs().outcome(e.getKey(), () -> {
                    var info = admin.listOffsets(Map.of(tp, e.getValue())).partitionResult(tp).get(30, TimeUnit.SECONDS);
                    return info.offset() + "@" + (info.timestamp() < 0 ? info.timestamp() : info.timestamp() - base);
                });
            }
            c.obs().outcome("unknown-partition", () -> admin.listOffsets(Map.of(new TopicPartition(topic, 5),
                    OffsetSpec.latest())).all().get(30, TimeUnit.SECONDS));
        }));
        all.add(Scenario.of("admin-delete-records", c -> {
            String topic = c.topic("t", 1);
            KafkaProducer<String, String> p = c.producer();
            for (int i = 0; i < 5; i++) {
                p.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
            TopicPartition tp = new TopicPartition(topic, 0);
            c.obs().outcome("delete-before-3", () -> c.admin().deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(3)))
                    .lowWatermarks().get(tp).get(30, TimeUnit.SECONDS).lowWatermark());
            c.obs().outcome("delete-before-2", () -> c.admin().deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(2)))
                    .lowWatermarks().get(tp).get(30, TimeUnit.SECONDS).lowWatermark());
            c.obs().outcome("delete-beyond-end", () -> c.admin().deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(9)))
                    .lowWatermarks().get(tp).get(30, TimeUnit.SECONDS).lowWatermark());
            c.obs().outcome("delete-to-high-watermark", () -> c.admin().deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(-1)))
                    .lowWatermarks().get(tp).get(30, TimeUnit.SECONDS).lowWatermark());
            c.obs().put("earliest", c.admin().listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp)
                    .get(30, TimeUnit.SECONDS).offset());
            c.obs().put("records", c.readAll(topic));
        }));
        all.add(Scenario.of("admin-describe-cluster-and-features", c -> {
            var cluster = c.admin().describeCluster();
            c.obs().put("nodes", cluster.nodes().get(30, TimeUnit.SECONDS).stream().map(n -> n.id() + "@" + n.host()).toList());
            c.obs().put("cluster-id-length", cluster.clusterId().get(30, TimeUnit.SECONDS).length());
            c.obs().put("controller-present", cluster.controller().get(30, TimeUnit.SECONDS) != null);
            var features = c.admin().describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS);
            c.obs().put("finalized", new java.util.TreeMap<>(features.finalizedFeatures()).entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue().maxVersionLevel()).toList());
        }));
        all.add(Scenario.of("admin-elect-leaders-not-needed", c -> {
            String topic = c.topic("t", 1);
            TopicPartition tp = new TopicPartition(topic, 0);
            c.obs().outcome("preferred", () -> c.admin().electLeaders(ElectionType.PREFERRED, java.util.Set.of(tp)).all()
                    .get(30, TimeUnit.SECONDS));
            c.obs().outcome("unclean", () -> c.admin().electLeaders(ElectionType.UNCLEAN, java.util.Set.of(tp)).all()
                    .get(30, TimeUnit.SECONDS));
        }));
        all.add(Scenario.of("admin-describe-producers", c -> {
            String topic = c.topic("t", 1);
            KafkaProducer<String, String> p = c.producer("enable.idempotence", true);
            for (int i = 0; i < 5; i++) {
                p.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
            TopicPartition tp = new TopicPartition(topic, 0);
            var states = c.admin().describeProducers(List.of(tp)).partitionResult(tp).get(30, TimeUnit.SECONDS).activeProducers();
            c.obs().put("producers", states.stream().map(s -> "epoch=" + s.producerEpoch() + " lastSeq=" + s.lastSequence()
                    + " coordinatorEpoch=" + s.coordinatorEpoch() + " txnStart=" + s.currentTransactionStartOffset()).toList());
        }));
        all.add(Scenario.of("admin-acls-without-authorizer", c -> {
            c.obs().outcome("describe", () -> c.admin().describeAcls(org.apache.kafka.common.acl.AclBindingFilter.ANY).values()
                    .get(30, TimeUnit.SECONDS).size());
            var binding = new org.apache.kafka.common.acl.AclBinding(new org.apache.kafka.common.resource.ResourcePattern(
                    org.apache.kafka.common.resource.ResourceType.TOPIC, "x", org.apache.kafka.common.resource.PatternType.LITERAL),
                    new org.apache.kafka.common.acl.AccessControlEntry("User:a", "*",
                            org.apache.kafka.common.acl.AclOperation.READ, org.apache.kafka.common.acl.AclPermissionType.ALLOW));
            c.obs().outcome("create", () -> c.admin().createAcls(List.of(binding)).all().get(30, TimeUnit.SECONDS));
        }));
        all.add(Scenario.of("admin-client-quotas", c -> {
            var entity = new org.apache.kafka.common.quota.ClientQuotaEntity(Map.of("client-id", c.name("client")));
            c.obs().outcome("alter", () -> c.admin().alterClientQuotas(List.of(new org.apache.kafka.common.quota.ClientQuotaAlteration(
                    entity, List.of(new org.apache.kafka.common.quota.ClientQuotaAlteration.Op("producer_byte_rate", 1024.0)))))
                    .all().get(30, TimeUnit.SECONDS));
            var filter = org.apache.kafka.common.quota.ClientQuotaFilter.contains(List.of(
                    org.apache.kafka.common.quota.ClientQuotaFilterComponent.ofEntity("client-id", c.name("client"))));
            // Kafka's brokers describe quotas from their metadata image, a moment after the controller's commit.
            try {
                await().atMost(ScenarioContext.WAIT).pollInterval(Duration.ofMillis(50)).ignoreExceptions()
                        .until(() -> !c.admin().describeClientQuotas(filter).entities().get(30, TimeUnit.SECONDS).isEmpty());
            } catch (ConditionTimeoutException notApplied) {
                // Compared as it is.
            }
            c.obs().outcome("describe", () -> c.admin().describeClientQuotas(filter).entities().get(30, TimeUnit.SECONDS)
                    .values().toString());
            c.obs().outcome("unknown-key", () -> c.admin().alterClientQuotas(List.of(new org.apache.kafka.common.quota
                    .ClientQuotaAlteration(entity, List.of(new org.apache.kafka.common.quota.ClientQuotaAlteration.Op("no_such_rate",
                    1.0))))).all().get(30, TimeUnit.SECONDS));
        }));
        all.add(Scenario.of("admin-scram-credentials-and-reassignments", c -> {
            c.obs().outcome("describe-scram", () -> c.admin().describeUserScramCredentials().all().get(30, TimeUnit.SECONDS)
                    .keySet().stream().sorted().toList());
            c.obs().outcome("list-reassignments", () -> c.admin().listPartitionReassignments().reassignments()
                    .get(30, TimeUnit.SECONDS).size());
        }));
        all.add(Scenario.of("admin-describe-log-dirs", c -> {
            String topic = c.topic("t", 2);
            KafkaProducer<String, String> p = c.producer();
            p.send(new ProducerRecord<>(topic, 0, "k", "v")).get(30, TimeUnit.SECONDS);
            p.send(new ProducerRecord<>(topic, 1, "k", "v")).get(30, TimeUnit.SECONDS);
            c.obs().outcome("described", () -> {
                var dirs = c.admin().describeLogDirs(List.of(1)).allDescriptions().get(30, TimeUnit.SECONDS).get(1);
                return dirs.size() + " dir(s), errors " + dirs.values().stream().map(d -> String.valueOf(d.error())).toList()
                        + ", partitions " + dirs.values().stream().flatMap(d -> d.replicaInfos().keySet().stream())
                        .filter(tp -> tp.topic().equals(topic)).map(TopicPartition::partition).sorted().toList();
            });
        }));
        all.add(Scenario.of("admin-list-groups-filtered", c -> {
            String topic = c.topic("t", 1);
            String classic = c.name("classic");
            String modern = c.name("modern");
            var a = GroupScenarios.member(c, "classic", classic, "a", topic);
            var b = GroupScenarios.member(c, "consumer", modern, "b", topic);
            ScenarioContext.pollUntil(List.of(a, b), "both assigned", () -> !a.assignment().isEmpty() && !b.assignment().isEmpty());
            for (var type : List.of(org.apache.kafka.common.GroupType.CLASSIC, org.apache.kafka.common.GroupType.CONSUMER)) {
                c.obs().put("type-" + type, c.admin().listGroups(new org.apache.kafka.clients.admin.ListGroupsOptions()
                        .withTypes(java.util.Set.of(type))).all().get(30, TimeUnit.SECONDS).stream()
                        .map(l -> l.groupId()).filter(g -> g.startsWith(c.name(""))).sorted().toList());
            }
            c.obs().put("state-empty", c.admin().listGroups(new org.apache.kafka.clients.admin.ListGroupsOptions()
                    .inGroupStates(java.util.Set.of(org.apache.kafka.common.GroupState.EMPTY))).all().get(30, TimeUnit.SECONDS)
                    .stream().map(l -> l.groupId()).filter(g -> g.startsWith(c.name(""))).sorted().toList());
        }));
        return all;
    }

    private static Object create(ScenarioContext c, NewTopic topic) throws Exception {
        c.admin().createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        return null;
    }

    private static Object alter(ScenarioContext c, ConfigResource resource, AlterConfigOp op) throws Exception {
        c.admin().incrementalAlterConfigs(Map.of(resource, List.of(op))).all().get(30, TimeUnit.SECONDS);
        return null;
    }

    private static Config describe(ScenarioContext c, ConfigResource resource) throws Exception {
        return c.admin().describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
    }

    /**
     * The resource's configs once {@code applied} holds, or as they are after {@link ScenarioContext#WAIT}: Kafka's
     * brokers describe configs from their metadata image, which follows the controller's commit a moment later.
     */
    private static Config describeOnce(ScenarioContext c, ConfigResource resource, Predicate<Config> applied) {
        AtomicReference<Config> last = new AtomicReference<>();
        try {
            await().atMost(ScenarioContext.WAIT).pollInterval(Duration.ofMillis(50)).ignoreExceptions().until(() -> {
                last.set(describe(c, resource));
                return applied.test(last.get());
            });
        } catch (ConditionTimeoutException notApplied) {
            // Compared as it is: a target that never applies the change differs here.
        }
        return last.get();
    }

    private static String value(Config config, String key) {
        ConfigEntry e = config.get(key);
        return e == null || e.value() == null ? "" : e.value();
    }

    /** name=value (source, read-only, sensitive) for each of {@code keys}, "absent" for what is not described. */
    static List<String> entries(Config config, Collection<String> keys) {
        List<String> out = new ArrayList<>();
        for (String key : keys.stream().sorted().toList()) {
            ConfigEntry e = config.get(key);
            out.add(e == null ? key + " absent" : key + "=" + e.value() + " (" + e.source() + (e.isReadOnly() ? ", read-only" : "")
                    + (e.isSensitive() ? ", sensitive" : "") + ", " + e.type() + ")");
        }
        return out;
    }
}
