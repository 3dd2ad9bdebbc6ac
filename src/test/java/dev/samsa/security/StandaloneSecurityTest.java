package dev.samsa.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;

/** The launcher with security flags, as a user runs it: a separate JVM, the client config files it announces. */
class StandaloneSecurityTest {

    @Test
    void theLauncherWritesClientConfigsThatAJavaClientConnectsWith() throws Exception {
        Process process = launcher("--listener", "SASL_SSL", "--listener", "PLAINTEXT", "--user", "alice:alice-secret",
                "--sasl-mechanism", "SCRAM-SHA-256").redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(out.readLine()).startsWith("bootstrap.servers=127.0.0.1:");
            String line = out.readLine();
            assertThat(line).startsWith("client.config=").endsWith("client-alice.properties");
            Path javaFile = Path.of(line.substring("client.config=".length()));
            Properties java = load(javaFile);
            assertThat(java).containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.mechanism", "SCRAM-SHA-256");
            Properties librdkafka = load(javaFile.resolveSibling("client-alice.librdkafka.properties"));
            assertThat(librdkafka).containsEntry("sasl.mechanisms", "SCRAM-SHA-256").containsEntry("sasl.username", "alice")
                    .containsEntry("sasl.password", "alice-secret");
            assertThat(Files.readString(Path.of(librdkafka.getProperty("ssl.ca.location")))).startsWith("-----BEGIN CERTIFICATE-----");

            Map<String, Object> config = new HashMap<>();
            java.forEach((k, v) -> config.put((String) k, v));
            try (Admin admin = Admin.create(config)) {
                assertThat(admin.describeCluster().nodes().get(15, TimeUnit.SECONDS)).hasSize(1);
            }
            process.destroy();
            await().atMost(Duration.ofSeconds(30)).until(() -> process.waitFor(100, TimeUnit.MILLISECONDS));
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void anOauthBearerLauncherWritesLibrdkafkasUnsecuredTokenConfigAndAJavaClientConnects() throws Exception {
        Process process = launcher("--listener", "SASL_PLAINTEXT", "--user", "bob:unused", "--sasl-mechanism", "OAUTHBEARER")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            assertThat(out.readLine()).startsWith("bootstrap.servers=127.0.0.1:");
            Path javaFile = Path.of(out.readLine().substring("client.config=".length()));
            Properties librdkafka = load(javaFile.resolveSibling("client-bob.librdkafka.properties"));
            assertThat(librdkafka).containsEntry("sasl.mechanisms", "OAUTHBEARER")
                    .containsEntry("enable.sasl.oauthbearer.unsecure.jwt", "true")
                    .containsEntry("sasl.oauthbearer.config", "principal=bob")
                    .doesNotContainKeys("sasl.username", "sasl.password");

            Map<String, Object> config = new HashMap<>();
            load(javaFile).forEach((k, v) -> config.put((String) k, v));
            try (Admin admin = Admin.create(config)) {
                assertThat(admin.describeCluster().nodes().get(15, TimeUnit.SECONDS)).hasSize(1);
            }
            process.destroy();
            await().atMost(Duration.ofSeconds(30)).until(() -> process.waitFor(100, TimeUnit.MILLISECONDS));
        } finally {
            process.destroyForcibly();
        }
    }

    private static Properties load(Path file) throws Exception {
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            properties.load(in);
        }
        return properties;
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
