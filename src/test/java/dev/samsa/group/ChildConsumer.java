package dev.samsa.group;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * A consumer in a JVM of its own, for tests that kill it with SIGKILL:
 * {@code ChildConsumer <bootstrap> <group> <topic> <classic|consumer>}. Polls until killed. A classic member's
 * heartbeat interval is the client default, 3 s: a jump right after the kill comes well within it, so only the closed
 * connection can tell the coordinator that the process is gone.
 */
public final class ChildConsumer {

    private ChildConsumer() {
    }

    public static void main(String[] args) {
        Map<String, Object> config = new HashMap<>(Map.of("bootstrap.servers", args[0], "group.id", args[1],
                "client.id", "child", "group.protocol", args[3],
                "key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer",
                "value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer"));
        if (args[3].equals("classic")) {
            // The consumer protocol refuses this client setting: its session timeout is the broker's.
            config.put("session.timeout.ms", "45000");
        }
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(args[2]));
            while (true) {
                consumer.poll(Duration.ofMillis(100));
            }
        }
    }

    /** Starts a child JVM with this JVM's classpath and module flags; its output is drained so it never blocks. */
    public static Process start(String bootstrap, String group, String topic, String protocol) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-opens") || a.startsWith("--add-exports")).forEach(command::add);
        command.add("-Xmx256m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(ChildConsumer.class.getName());
        command.addAll(List.of(bootstrap, group, topic, protocol));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        Thread drain = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                while (in.readLine() != null) {
                    // its log lines are not this test's business
                }
            } catch (IOException ignored) {
                // the process was killed
            }
        }, "child-consumer-output");
        drain.setDaemon(true);
        drain.start();
        return process;
    }
}
