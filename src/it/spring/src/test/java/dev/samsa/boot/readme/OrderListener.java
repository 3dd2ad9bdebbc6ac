package dev.samsa.boot.readme;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

// ## docs/spring.md: the application's listener

@Component
public class OrderListener {
    private final List<String> received = new CopyOnWriteArrayList<>();

    @KafkaListener(id = "orders", topics = "orders", properties = "auto.offset.reset=earliest")
    void on(String order) {
        received.add(order);
    }

    public List<String> received() {
        return received;
    }
}
