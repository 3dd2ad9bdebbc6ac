package dev.samsa.group;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * A consumer in a JVM of its own, for tests that kill it with SIGKILL: {@code ChildConsumer <bootstrap> <group> <topic>}.
 * Polls until killed. Its heartbeat interval is the client default, 3 s: a jump right after the kill comes well
 * within it, so only the closed connection can tell the coordinator that the process is gone.
 */
public final class ChildConsumer {

    private ChildConsumer() {
    }

    public static void main(String[] args) {
        Map<String, Object> config = Map.of("bootstrap.servers", args[0], "group.id", args[1], "client.id", "child",
                "session.timeout.ms", "45000",
                "key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer",
                "value.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(args[2]));
            while (true) {
                consumer.poll(Duration.ofMillis(100));
            }
        }
    }
}
