package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;

/** The launcher as a user runs it: a separate JVM, the ready line on stdout, a clean stop on SIGTERM. */
class StandaloneTest {

    @Test
    void theLauncherPrintsTheReadyLineServesClientsAndStopsOnSigterm() throws Exception {
        Process process = launcher("--brokers", "2", "--topic", "events:3:2", "--config", "num.partitions=2")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String ready = out.readLine();
            assertThat(ready).matches("bootstrap\\.servers=127\\.0\\.0\\.1:\\d+,127\\.0\\.0\\.1:\\d+");
            String bootstrap = ready.substring("bootstrap.servers=".length());
            try (Admin admin = Admin.create(java.util.Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                assertThat(admin.describeTopics(List.of("events")).allTopicNames().get().get("events").partitions()).hasSize(3);
                assertThat(admin.describeCluster().nodes().get()).hasSize(2);
            }
            process.destroy();
            await().atMost(Duration.ofSeconds(30)).until(() -> process.waitFor(100, TimeUnit.MILLISECONDS));
            assertThat(process.exitValue()).isIn(0, 143);
        } finally {
            process.destroyForcibly();
        }
    }
    @Test
    void helpPrintsTheUsageWithEveryOptionAndExitsWithZero() throws Exception {
        Process process = launcher("--help").start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).isZero();
        assertThat(out).contains("--brokers", "--port", "--seed", "--config", "--topic");
    }

    @Test
    void aTopicTheClusterCannotCreateIsOneLineNamingItAndExitTwo() throws Exception {
        Process process = launcher("--brokers", "2", "--topic", "payments:1:3").start();
        String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).isEqualTo(2);
        assertThat(err).contains("Cannot create topic 'payments'", "replication factor of 3").doesNotContain("\tat ")
                .doesNotContain("Exception");
    }

    private static ProcessBuilder launcher(String... args) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(List.of("-Dorg.slf4j.simpleLogger.log.dev.samsa=warn", "-cp", System.getProperty("java.class.path"),
                "dev.samsa.cli.Standalone"));
        command.addAll(List.of(args));
        return new ProcessBuilder(command);
    }
}
