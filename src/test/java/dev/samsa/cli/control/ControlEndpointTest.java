package dev.samsa.cli.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.event.BrokerLatency;
import dev.samsa.event.BrokerStopped;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Each resource's happy path, in process: the endpoint over a cluster of the test's own, driven through HTTP, and
 * what it did checked through the Java API (what the launcher's users cannot see, the test can).
 */
class ControlEndpointTest {

    private KafkaCluster cluster;
    private ControlEndpoint endpoint;
    private ControlClient control;

    private void start(int brokers, String topic, int partitions, int replicationFactor) throws Exception {
        cluster = KafkaCluster.builder().brokers(brokers).seed(28)
                .clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z")))
                .topic(topic, partitions, replicationFactor).start();
        endpoint = ControlEndpoint.start(cluster, 0);
        control = new ControlClient(endpoint.url());
    }

    @AfterEach
    void stop() {
        if (endpoint != null) {
            endpoint.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object value) {
        return (List<Object>) value;
    }

    private static Object field(Object map, String name) {
        return ((Map<?, ?>) map).get(name);
    }

    private ControlClient.Reply ok(ControlClient.Reply reply) {
        assertThat(reply.status()).as("%s", reply).isEqualTo(200);
        return reply;
    }

    @Test
    void theClusterViewHasBrokersControllerTopicsReplicasGroupsAndTransactions() throws Exception {
        start(2, "orders", 2, 2);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.consumerConfig("billing"))) {
            consumer.commitSync(Map.of(new TopicPartition("orders", 0), new OffsetAndMetadata(0)));
        }
        Map<String, Object> config = cluster.producerConfig();
        config.put("transactional.id", "tx-1");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("orders", 1, "k", "v"));
            producer.commitTransaction();
        }

        ControlClient.Reply view = ok(control.get("/cluster"));
        assertThat(view.get("bootstrapServers")).isEqualTo(cluster.bootstrapServers());
        assertThat(view.number("controller")).isEqualTo(cluster.controller());
        assertThat(view.get("brokers.1")).isEqualTo(Map.of("id", 2L, "address", cluster.broker(2).address(), "state", "running"));
        assertThat(view.get("clock.manual")).isEqualTo(true);
        List<Object> topics = list(view.get("topics"));
        assertThat(topics).extracting(t -> field(t, "name")).contains("orders", "__consumer_offsets", "__transaction_state");
        Map<?, ?> orders = (Map<?, ?>) topics.stream().filter(t -> field(t, "name").equals("orders")).findFirst().orElseThrow();
        assertThat(orders.get("internal")).isEqualTo(false);
        Map<?, ?> p1 = (Map<?, ?>) (list(orders.get("partitions"))).get(1);
        assertThat(p1.get("leader")).isEqualTo((long) cluster.partition("orders", 1).leader());
        assertThat(p1.get("highWatermark")).isEqualTo(2L); // the record and the commit marker
        assertThat(list(p1.get("replicaStates"))).hasSize(2).allSatisfy(r -> {
            assertThat(field(r, "logEndOffset")).isEqualTo(2L);
            assertThat(field(r, "inIsr")).isEqualTo(true);
        });
        assertThat(list(view.get("groups"))).extracting(g -> field(g, "groupId")).containsExactly("billing");
        assertThat(list(view.get("transactions"))).singleElement()
                .satisfies(t -> assertThat(field(t, "transactionalId")).isEqualTo("tx-1"))
                .satisfies(t -> assertThat(field(t, "state")).isEqualTo("CompleteCommit"));

        assertThat(ok(control.get("/groups/billing")).get("committed")).isEqualTo(Map.of("orders-0", 0L));
        assertThat(ok(control.get("/groups/billing")).get("state")).isEqualTo("Empty");
        assertThat(ok(control.get("/groups/billing")).number("coordinator")).isEqualTo(cluster.groupCoordinator("billing"))
                .isPositive();
        assertThat(ok(control.get("/transactions/tx-1")).get("state")).isEqualTo("CompleteCommit");
        assertThat(ok(control.get("/topics/orders/partitions/1")).map()).isEqualTo(p1);
        assertThat(list(ok(control.get("/topics/orders")).get("partitions"))).hasSize(2);
        assertThat(list(ok(control.get("/topics")).json())).hasSameSizeAs(topics);
        assertThat(list(ok(control.get("/brokers")).json())).hasSize(2);
        assertThat(ok(control.get("/brokers/1")).get("state")).isEqualTo("running");
        assertThat(list(ok(control.get("/groups")).json())).hasSize(1);
        assertThat(list(ok(control.get("/transactions")).json())).hasSize(1);
        assertThat(list(ok(control.get("/")).get("resources"))).contains("POST /brokers/{id}/crash", "GET /history");
    }

    @Test
    void brokersCrashLoseTheirPowerShutDownStartIsolateHealAndGetLatency() throws Exception {
        start(3, "orders", 1, 3);
        assertThat(ok(control.post("/brokers/1/crash")).get("broker.state")).isEqualTo("stopped");
        assertThat(cluster.broker(1).isRunning()).isFalse();
        assertThat(ok(control.post("/brokers/1/start")).get("broker.state")).isEqualTo("running");
        ok(control.post("/brokers/2/power-loss"));
        assertThat(cluster.events().events(BrokerStopped.class)).extracting(BrokerStopped::how).contains("CRASH", "POWER_LOSS");
        ok(control.post("/brokers/2/restart"));
        ok(control.post("/brokers/3/shutdown"));
        assertThat(cluster.broker(3).isRunning()).isFalse();
        ok(control.post("/brokers/3/start"));

        int leader = cluster.partition("orders", 0).leader();
        ok(control.post("/brokers/" + leader + "/isolate", "{\"fromBrokers\":true}"));
        // Fenced: the controller moves leadership away, while the broker still takes clients.
        assertThat(cluster.partition("orders", 0).leader()).isNotEqualTo(leader);
        ok(control.post("/brokers/" + leader + "/heal"));
        ok(control.post("/brokers/1/isolate"));
        ok(control.post("/brokers/1/heal"));
        ok(control.post("/brokers/2/isolate", "{\"fromClients\":true}"));
        ok(control.post("/brokers/2/heal"));
        assertThat(cluster.events().events(dev.samsa.event.BrokerIsolated.class))
                .extracting(i -> i.fromClients() + "/" + i.fromBrokers()).containsExactly("false/true", "true/true", "true/false");

        ok(control.post("/brokers/2/latency", "{\"ms\":200}"));
        ok(control.post("/brokers/2/latency", "{\"ms\":0}"));
        assertThat(cluster.events().events(BrokerLatency.class)).extracting(l -> l.latency().toMillis()).containsExactly(200L, 0L);
        ok(control.post("/brokers/2/drop-connections"));
        ok(control.post("/clients/drop-connections"));
        ok(control.post("/clients/drop-connections", "{\"broker\":3}"));
    }

    @Test
    void aPausedFollowerLeavesTheIsrOnceTheClockPassesTheLagAndRejoinsWhenResumed() throws Exception {
        start(2, "orders", 1, 2);
        int leader = cluster.partition("orders", 0).leader();
        int follower = 3 - leader;
        ControlClient.Reply paused = ok(control.post("/partitions/orders/0/followers/" + follower + "/pause"));
        assertThat(list(paused.get("partition.isr"))).hasSize(2);
        Map<String, Object> acks1 = cluster.producerConfig();
        acks1.put("acks", "1"); // acks=all would wait for the paused follower
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(acks1)) {
            producer.send(new ProducerRecord<>("orders", 0, "k", "v")).get(10, TimeUnit.SECONDS);
        }
        // Past replica.lag.time.max.ms (30 s): the follower has not caught up, so it leaves the ISR.
        ControlClient.Reply advanced = ok(control.post("/clock/advance", "{\"ms\":30001}"));
        assertThat(advanced.get("clock.time")).isEqualTo("2026-01-01T00:00:30.001Z");
        assertThat(ok(control.get("/topics/orders/partitions/0")).get("isr")).isEqualTo(List.of((long) leader));

        long since = ok(control.post("/partitions/orders/0/followers/" + follower + "/resume")).number("timeline");
        ControlClient.Reply expanded = ok(control.post("/await",
                "{\"event\":\"IsrExpanded\",\"topic\":\"orders\",\"partition\":0,\"since\":" + since + "}"));
        assertThat(expanded.number("event.position")).isGreaterThanOrEqualTo(since);
        assertThat(expanded.get("event.fields.added")).isEqualTo((long) follower);
        assertThat(ok(control.get("/clock")).get("timeMs")).isEqualTo(Instant.parse("2026-01-01T00:00:30.001Z").toEpochMilli());
    }

    @Test
    void failNextByTopicFailsOnlyRequestsNamingThatTopic() throws Exception {
        start(1, "orders", 1, 1);
        cluster.createTopic("audit", 1, 1);
        ControlClient.Reply failing = ok(control.post("/faults/fail-next",
                "{\"api\":\"PRODUCE\",\"error\":\"INVALID_TIMESTAMP\",\"topic\":\"orders\"}"));
        assertThat(failing.get("interception.topic")).isEqualTo("orders");
        Map<String, Object> config = cluster.producerConfig();
        config.put("retries", "0");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            producer.send(new ProducerRecord<>("audit", 0, "k", "v")).get(30, TimeUnit.SECONDS);
            assertThat(list(ok(control.get("/faults")).get("interceptions"))).as("audit's produce passed").hasSize(1);
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("orders", 0, "k", "v")).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.InvalidTimestampException.class);
        }
        assertThat(list(ok(control.get("/faults")).get("interceptions"))).isEmpty();
    }

    @Test
    void interceptionsFailOrDelayTheNextRequestsAndDeleteFaultsRemovesThoseLeft() throws Exception {
        start(1, "orders", 1, 1);
        ControlClient.Reply failing = ok(control.post("/faults/fail-next",
                "{\"api\":\"produce\",\"error\":\"not-leader-or-follower\",\"count\":2}"));
        assertThat(failing.number("interception.id")).isEqualTo(1L);
        @SuppressWarnings("unchecked")
        Map<String, Object> interception = (Map<String, Object>) failing.get("interception");
        assertThat(interception).containsEntry("id", 1L).containsEntry("kind", "fail-next")
                .containsEntry("api", "PRODUCE").containsEntry("error", "NOT_LEADER_OR_FOLLOWER").containsEntry("broker", null)
                .containsEntry("count", 2L).containsEntry("remaining", 2L);
        ok(control.post("/faults/delay-next", "{\"api\":\"FETCH\",\"ms\":10,\"broker\":1}"));
        assertThat(list(ok(control.get("/faults")).get("interceptions"))).hasSize(2);
        // The producer retries through both failures.
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
            producer.send(new ProducerRecord<>("orders", 0, "k", "v")).get(30, TimeUnit.SECONDS);
        }
        assertThat(cluster.events().events(dev.samsa.event.FaultInjected.class)).extracting(f -> f.api() + " " + f.error())
                .containsExactly("PRODUCE NOT_LEADER_OR_FOLLOWER", "PRODUCE NOT_LEADER_OR_FOLLOWER");
        assertThat(list(ok(control.get("/faults")).get("interceptions"))).singleElement()
                .satisfies(i -> assertThat(field(i, "kind")).isEqualTo("delay-next"));
        ok(control.post("/faults/fail-next", "{\"api\":\"METADATA\",\"error\":\"UNKNOWN_SERVER_ERROR\",\"count\":100}"));
        assertThat(ok(control.delete("/faults")).number("removed")).isEqualTo(2);
        assertThat(list(ok(control.get("/faults")).get("interceptions"))).isEmpty();
        try (var admin = org.apache.kafka.clients.admin.Admin.create(cluster.adminConfig())) {
            assertThat(admin.describeCluster().nodes().get(10, TimeUnit.SECONDS)).hasSize(1);
        }
    }

    @Test
    void transactionFaultsHoldAndReleaseMarkersAndArmTheCoordinator() throws Exception {
        start(1, "orders", 1, 1);
        ok(control.post("/faults/hold-markers", "{\"topic\":\"orders\",\"partition\":0}"));
        ok(control.post("/faults/release-markers", "{\"topic\":\"orders\",\"partition\":0}"));
        ok(control.post("/faults/hold-markers", "{\"broker\":1}"));
        ok(control.post("/faults/release-markers", "{\"broker\":1}"));
        ok(control.post("/faults/transaction-coordinator", "{\"transactionalId\":\"tx\",\"state\":\"PrepareCommit\"}"));
        ok(control.post("/faults/transaction-coordinator",
                "{\"transactionalId\":\"tx\",\"state\":\"PREPARE_ABORT\",\"action\":\"isolate\"}"));
        assertThat(cluster.events().events()).extracting(e -> e.type() + " " + e.details())
                .filteredOn(line -> line.contains("marker") || line.contains("tx"))
                .hasSizeGreaterThanOrEqualTo(6);
    }

    @Test
    void aTriggerRunsItsActionsOnTheLoopWhenItsEventIsRecorded() throws Exception {
        start(3, "orders", 1, 3);
        ControlClient.Reply armed = ok(control.post("/triggers", "{\"when\":{\"event\":\"BrokerStopped\",\"brokerId\":1},"
                + "\"then\":[{\"path\":\"/brokers/2/crash\"},{\"path\":\"/brokers/3/latency\",\"body\":{\"ms\":5}}]}"));
        assertThat(armed.get("trigger.id")).isEqualTo(1L);
        ok(control.post("/triggers", "{\"when\":{\"event\":\"leaderChanged\",\"topic\":\"orders\",\"partition\":0},"
                + "\"then\":{\"path\":\"/clients/drop-connections\"},\"every\":true}"));
        ok(control.post("/brokers/1/crash"));
        // The action ran before the crash's answer: the loop runs triggers right after the step.
        assertThat(cluster.broker(2).isRunning()).isFalse();
        assertThat(cluster.events().events(BrokerLatency.class)).singleElement().satisfies(l -> assertThat(l.brokerId()).isEqualTo(3));
        List<Object> triggers = list(ok(control.get("/triggers")).get("triggers"));
        assertThat(triggers).extracting(t -> field(t, "fired")).allSatisfy(f -> assertThat((Long) f).isPositive());
        assertThat(ok(control.delete("/triggers/1")).number("cancelled")).isEqualTo(1);
        assertThat(ok(control.delete("/triggers")).number("cancelled")).isEqualTo(1);
        assertThat(list(ok(control.get("/triggers")).get("triggers"))).isEmpty();
    }

    @Test
    void theTimelineListsTypedEventsSinceAPositionAndDrawsItsPageAndTheHistoryIsTheClustersOwn() throws Exception {
        start(1, "orders", 1, 1);
        ControlClient.Reply all = ok(control.get("/timeline"));
        assertThat(all.get("events.0.kind")).isEqualTo("ClusterStarted");
        assertThat(all.get("events.0.fields.seed")).isEqualTo(28L);
        long next = all.number("next");
        assertThat(next).isEqualTo((list(all.get("events"))).size());
        ok(control.post("/brokers/1/latency", "{\"ms\":7}"));
        ControlClient.Reply since = ok(control.get("/timeline?since=" + next));
        assertThat(list(since.get("events"))).singleElement().satisfies(e -> {
            Map<?, ?> event = (Map<?, ?>) e;
            assertThat(event.get("position")).isEqualTo(next);
            assertThat(event.get("kind")).isEqualTo("BrokerLatency");
            assertThat(event.get("fields")).isEqualTo(Map.of("brokerId", 1L, "latency", 7L));
            assertThat(event.get("time")).isEqualTo("2026-01-01T00:00:00Z");
        });

        ControlClient.Reply page = control.get("/timeline.html");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.response().headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
        assertThat(page.body()).startsWith("<!DOCTYPE html>").contains("Samsa cluster timeline", "<svg");

        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
            producer.send(new ProducerRecord<>("orders", 0, "k", "v")).get(10, TimeUnit.SECONDS);
        }
        ControlClient.Reply history = ok(control.get("/history"));
        assertThat(history.number("acknowledgedBatches")).isEqualTo(cluster.history().acknowledgedBatches()).isEqualTo(1);
        assertThat(history.number("lostRecords")).isZero();
        assertThat(history.get("text")).isEqualTo(cluster.history().toString());
    }

    @Test
    void anAwaitAnswersOnceTheGroupIsInTheStateAsked() throws Exception {
        start(1, "orders", 1, 1);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.consumerConfig("billing"))) {
            consumer.subscribe(List.of("orders"));
            // The consumer joins on its polls while the await waits on another thread.
            var reply = java.util.concurrent.CompletableFuture.supplyAsync(() -> control.post("/await",
                    "{\"group\":\"billing\",\"state\":\"Stable\",\"members\":1,\"timeoutMs\":30000}"));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(20));
                return reply.isDone();
            });
            ControlClient.Reply stable = ok(reply.get());
            assertThat(stable.get("group.state")).isEqualTo("Stable");
            assertThat(stable.get("group.members.0.assignment")).isEqualTo(Map.of("orders", List.of(0L)));
        }
        // An event already on the timeline answers at once.
        ControlClient.Reply event = ok(control.post("/await", "{\"event\":\"groupEntered\",\"group\":\"billing\",\"state\":\"Stable\"}"));
        assertThat(event.get("event.kind")).isEqualTo("GroupStateChanged");
    }
}
