package dev.samsa.boot.orders;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/** The application under test: Spring Boot's Kafka auto-configuration and one listener, no Kafka properties. */
@SpringBootApplication
public class OrdersApplication {

    /** Keeps every "key:value" it received, in order. */
    @Component
    public static class OrderListener {
        private final List<String> received = new CopyOnWriteArrayList<>();

        @KafkaListener(id = "orders", topics = "orders", properties = "auto.offset.reset=earliest")
        void on(org.apache.kafka.clients.consumer.ConsumerRecord<String, String> order) {
            received.add(order.key() + ":" + order.value());
        }

        public List<String> received() {
            return received;
        }
    }
}
