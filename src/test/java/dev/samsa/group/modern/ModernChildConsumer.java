package dev.samsa.group.modern;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;

/**
 * A {@code group.protocol=consumer} member in a JVM of its own, for tests that kill it with SIGKILL:
 * {@code ModernChildConsumer <bootstrap> <group> <topic>}. Polls until killed.
 */
public final class ModernChildConsumer {

    private ModernChildConsumer() {
    }

    public static void main(String[] args) {
        Map<String, Object> config = Map.of("bootstrap.servers", args[0], "group.id", args[1], "client.id", "child",
                "group.protocol", "consumer",
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
