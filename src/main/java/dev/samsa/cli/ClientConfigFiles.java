package dev.samsa.cli;

import dev.samsa.KafkaCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * Writes what a client outside the JVM needs to connect as one user: a Java client properties file (kafka-console-*
 * --command-config, --producer.config) and a librdkafka one (kcat -F), with the certificates librdkafka reads from
 * files as PEM files beside them.
 */
final class ClientConfigFiles {

    private ClientConfigFiles() {
    }

    /**
     * @param user null for a listener that needs no identity
     * @return the Java client properties file; the librdkafka one is beside it, named {@code *.librdkafka.properties}
     */
    static Path write(KafkaCluster cluster, String user, String password) {
        Map<String, Object> java = password == null ? cluster.clientConfig(user) : cluster.clientConfig(user, password);
        String name = "client" + (user == null ? "" : "-" + user.replaceAll("[^A-Za-z0-9_.-]", "_"));
        Path dir = cluster.dataDirectory();
        try {
            Properties javaProperties = new Properties();
            java.forEach((k, v) -> javaProperties.setProperty(k, v.toString()));
            Path javaFile = dir.resolve(name + ".properties");
            store(javaProperties, javaFile, "Java clients");

            Map<String, String> librdkafka = new java.util.LinkedHashMap<>();
            librdkafka.put("bootstrap.servers", (String) java.get("bootstrap.servers"));
            if (java.containsKey("security.protocol")) {
                librdkafka.put("security.protocol", (String) java.get("security.protocol"));
            }
            if (java.containsKey("ssl.truststore.certificates")) {
                Path ca = Files.writeString(dir.resolve("ca.pem"), (String) java.get("ssl.truststore.certificates"));
                librdkafka.put("ssl.ca.location", ca.toString());
            }
            if (java.containsKey("ssl.keystore.key")) {
                librdkafka.put("ssl.certificate.location",
                        Files.writeString(dir.resolve(name + ".pem"), (String) java.get("ssl.keystore.certificate.chain")).toString());
                librdkafka.put("ssl.key.location",
                        Files.writeString(dir.resolve(name + ".key"), (String) java.get("ssl.keystore.key")).toString());
            }
            if ("OAUTHBEARER".equals(java.get("sasl.mechanism"))) {
                // librdkafka's own unsecured token, the counterpart of the Java client's unsecured login handler
                librdkafka.put("sasl.mechanisms", "OAUTHBEARER");
                librdkafka.put("enable.sasl.oauthbearer.unsecure.jwt", "true");
                librdkafka.put("sasl.oauthbearer.config", "principal=" + user);
            } else if (java.containsKey("sasl.mechanism")) {
                librdkafka.put("sasl.mechanisms", (String) java.get("sasl.mechanism"));
                librdkafka.put("sasl.username", user);
                librdkafka.put("sasl.password", password);
            }
            // librdkafka reads key=value lines as they stand: no Properties escapes (a colon stays a colon)
            StringBuilder lines = new StringBuilder("# Samsa client config for librdkafka (kcat -F)\n");
            librdkafka.forEach((k, v) -> lines.append(k).append('=').append(v).append('\n'));
            Files.writeString(dir.resolve(name + ".librdkafka.properties"), lines);
            return javaFile;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the client config for " + user + " into " + dir, e);
        }
    }

    private static void store(Properties properties, Path file, String forWhom) throws IOException {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            properties.store(out, "Samsa client config for " + forWhom);
        }
    }
}
