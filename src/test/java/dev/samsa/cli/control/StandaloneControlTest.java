package dev.samsa.cli.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The launcher as a test in another language drives it: a separate JVM started with {@code --control-port 0 --clock
 * manual}, steered through HTTP alone, with kafka-clients on the data path that know nothing of Samsa. One launcher
 * for the class; each test has its own topics and groups and restarts what it stopped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StandaloneControlTest {

    private Process process;
    private ControlClient control;
    private String bootstrap;

    @BeforeAll
    void startTheLauncher() throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "-Dorg.slf4j.simpleLogger.log.dev.samsa=warn", "-cp", System.getProperty("java.class.path"),
                "dev.samsa.cli.Standalone", "--brokers", "3", "--control-port", "0", "--clock", "manual",
                "--topic", "failover:1:3", "--topic", "payments:1:3", "--topic", "ledger:1:3", "--topic", "audit:1:3",
                "--topic", "orders:2:1"));
        process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String controlLine = out.readLine();
        String ready = out.readLine();
        assertThat(controlLine).matches("control=http://127\\.0\\.0\\.1:\\d+");
        assertThat(ready).matches("bootstrap\\.servers=127\\.0\\.0\\.1:\\d+(,127\\.0\\.0\\.1:\\d+){2}");
        control = new ControlClient(controlLine.substring("control=".length()));
        bootstrap = ready.substring("bootstrap.servers=".length());
    }

    @AfterAll
    void stopTheLauncher() throws Exception {
        if (process != null) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    @Test
    void theClockIsManualAndTheClusterIsDescribed() {
        ControlClient.Reply clock = control.get("/clock");
        assertThat(clock.get("manual")).isEqualTo(true);
        // From the default start; another test of the class may have advanced it since.
        assertThat((String) clock.get("time")).startsWith("2026-01-01T00:");
        ControlClient.Reply cluster = control.get("/cluster");
        assertThat(cluster.status()).as("%s", cluster).isEqualTo(200);
        assertThat(cluster.get("bootstrapServers")).isEqualTo(bootstrap);
        assertThat((List<?>) cluster.get("brokers")).hasSize(3);
    }

    @Test
    void crashingTheLeaderOfAReplicatedPartitionGivesTheClientsANewLeader() throws Exception {
        int leader = (int) control.get("/topics/failover/partitions/0").number("leader");
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            assertThat(leaderSeenBy(admin, "failover")).isEqualTo(leader);

            ControlClient.Reply crash = control.post("/brokers/" + leader + "/crash");
            assertThat(crash.status()).as("%s", crash).isEqualTo(200);
            assertThat(crash.get("broker.state")).isEqualTo("stopped");
            try {
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                        assertThat(leaderSeenBy(admin, "failover")).isPositive().isNotEqualTo(leader));
                assertThat(leaderSeenBy(admin, "failover"))
                        .isEqualTo(control.get("/topics/failover/partitions/0").number("leader"));
            } finally {
                assertThat(control.post("/brokers/" + leader + "/start").status()).isEqualTo(200);
            }
        }
    }

    @Test
    void failingTheNextProduceGivesTheProducerThatError() throws Exception {
        int leader = (int) control.get("/topics/payments/partitions/0").number("leader");
        ControlClient.Reply armed = control.post("/faults/fail-next",
                "{\"api\":\"PRODUCE\",\"error\":\"NOT_LEADER_OR_FOLLOWER\",\"count\":1,\"broker\":" + leader + "}");
        assertThat(armed.status()).as("%s", armed).isEqualTo(200);
        Map<String, Object> config = producerConfig("1");
        config.put("retries", "0"); // the first answer is the one the test reads
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("payments", 0, "k", "v")).get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(NotLeaderOrFollowerException.class);
            // One-shot: the next produce goes through.
            producer.send(new ProducerRecord<>("payments", 0, "k", "v")).get(30, TimeUnit.SECONDS);
        }
        assertThat((List<?>) control.get("/faults").get("interceptions")).isEmpty();
    }

    @Test
    void advancingTheClockPastTheSessionTimeoutRebalancesTheGroupOntoTheSurvivor() throws Exception {
        KafkaConsumer<String, String> dying = consumer("dying");
        AtomicBoolean running = new AtomicBoolean(true);
        // The survivor polls on a thread of its own, as a live application does, while the test talks HTTP.
        Thread survivor = new Thread(() -> {
            try (KafkaConsumer<String, String> live = consumer("live")) {
                while (running.get()) {
                    live.poll(Duration.ofMillis(20));
                }
            }
        }, "survivor");
        survivor.start();
        try {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20)).until(() -> {
                dying.poll(Duration.ofMillis(20));
                ControlClient.Reply group = control.get("/groups/billing");
                return group.status() == 200 && "Stable".equals(group.get("state")) && ((List<?>) group.get("members")).size() == 2;
            });
            long generation = control.get("/groups/billing").number("generation");

            // The process dies: its sockets close, no LeaveGroup.
            dying.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP));
            // Past the 10 s session timeout in one jump: only the member that stopped talking is gone.
            ControlClient.Reply advance = control.post("/clock/advance", "{\"ms\":10001}");
            assertThat(advance.status()).as("%s", advance).isEqualTo(200);
            ControlClient.Reply stable = control.post("/await", "{\"group\":\"billing\",\"state\":\"Stable\",\"members\":1,"
                    + "\"timeoutMs\":30000}");
            assertThat(stable.status()).as("%s", stable).isEqualTo(200);
            assertThat(stable.number("group.generation")).isGreaterThan(generation);
            assertThat(stable.get("group.members.0.clientId")).isEqualTo("live");
            assertThat(stable.get("group.members.0.assignment")).isEqualTo(Map.of("orders", List.of(0L, 1L)));
        } finally {
            running.set(false);
            survivor.join(30_000);
        }
    }

    @Test
    void theHistoryReportsExactlyTheAcks1RecordsALeaderCrashLostAndNoneForAcksAll() throws Exception {
        // acks=1: the followers stop copying (still in the ISR: the manual clock does not move), the leader
        // acknowledges 10 records alone and crashes; a follower without them takes over.
        int leader = (int) control.get("/topics/ledger/partitions/0").number("leader");
        List<Integer> followers = followers("ledger", leader);
        for (int f : followers) {
            assertThat(control.post("/partitions/ledger/0/followers/" + f + "/pause").status()).isEqualTo(200);
        }
        int allLeader = (int) control.get("/topics/audit/partitions/0").number("leader");
        try {
            int acknowledged = produce("ledger", "1");
            assertThat(acknowledged).isEqualTo(10);
            assertThat(control.post("/brokers/" + leader + "/crash").status()).isEqualTo(200);
            assertThat(lostRecords("ledger")).as("%s", control.get("/history")).isEqualTo(10);

            // acks=all: answered once every in-sync replica has the records, so a crash of the leader loses none.
            int all = produce("audit", "all");
            assertThat(all).isEqualTo(10);
            if (allLeader == leader) {
                allLeader = (int) control.get("/topics/audit/partitions/0").number("leader");
            }
            assertThat(control.post("/brokers/" + allLeader + "/crash").status()).isEqualTo(200);
            assertThat(lostRecords("audit")).as("%s", control.get("/history")).isZero();
        } finally {
            for (int f : followers) {
                control.post("/partitions/ledger/0/followers/" + f + "/resume");
            }
            for (int b = 1; b <= 3; b++) {
                if ("stopped".equals(control.get("/brokers/" + b).get("state"))) {
                    control.post("/brokers/" + b + "/start");
                }
            }
        }
    }

    private long lostRecords(String topic) {
        ControlClient.Reply history = control.get("/history");
        assertThat(history.status()).as("%s", history).isEqualTo(200);
        long lost = 0;
        for (Object o : (List<?>) history.get("lost")) {
            Map<?, ?> l = (Map<?, ?>) o;
            if (l.get("topic").equals(topic)) {
                lost += (Long) l.get("lastOffset") - (Long) l.get("baseOffset") + 1;
            }
        }
        return lost;
    }

    private int produce(String topic, String acks) throws Exception {
        int acknowledged = 0;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(acks))) {
            for (int n = 0; n < 10; n++) {
                producer.send(new ProducerRecord<>(topic, 0, "k", "r" + n)).get(30, TimeUnit.SECONDS);
                acknowledged++;
            }
        }
        return acknowledged;
    }

    private List<Integer> followers(String topic, int leader) {
        List<Integer> followers = new ArrayList<>();
        for (Object r : (List<?>) control.get("/topics/" + topic + "/partitions/0").get("replicas")) {
            int id = ((Long) r).intValue();
            if (id != leader) {
                followers.add(id);
            }
        }
        return followers;
    }

    private Map<String, Object> producerConfig(String acks) {
        Map<String, Object> config = new java.util.HashMap<>();
        config.put("bootstrap.servers", bootstrap);
        config.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        config.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
        config.put("acks", acks);
        config.put("enable.idempotence", "false");
        return config;
    }

    private KafkaConsumer<String, String> consumer(String clientId) {
        Map<String, Object> config = new java.util.HashMap<>();
        config.put("bootstrap.servers", bootstrap);
        config.put("group.id", "billing");
        config.put("client.id", clientId);
        config.put("session.timeout.ms", "10000");
        // Heartbeats every second: a stall of a busy machine is not silence at the clock jump.
        config.put("heartbeat.interval.ms", "1000");
        config.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        config.put("value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config);
        consumer.subscribe(List.of("orders"));
        return consumer;
    }

    private static int leaderSeenBy(Admin admin, String topic) throws Exception {
        var node = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                .partitions().get(0).leader();
        return node == null ? -1 : node.id();
    }
}
