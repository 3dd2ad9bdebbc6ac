package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LongPollTest {

    private KafkaCluster cluster;

    @BeforeEach
    void start() {
        cluster = KafkaCluster.builder().topic("quiet", 1, 1).start();
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private KafkaConsumer<String, String> consumer(int maxWaitMs) {
        Map<String, Object> config = cluster.consumerConfig(null);
        config.put("fetch.max.wait.ms", Integer.toString(maxWaitMs));
        config.put("request.timeout.ms", Integer.toString(maxWaitMs + 30_000));
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config);
        TopicPartition tp = new TopicPartition("quiet", 0);
        consumer.assign(List.of(tp));
        consumer.seek(tp, 0);
        return consumer;
    }

    @Test
    void anEmptyPartitionIsLongPolledNotSpunOn() {
        try (KafkaConsumer<String, String> consumer = consumer(1_000)) {
            long before = cluster.requestsHandled("FETCH");
            // Three seconds of polling an empty partition with max.wait.ms=1000: about three fetches, each parked
            // until its wait is over. A broker that answered at once would see hundreds.
            assertThat(consumer.poll(Duration.ofSeconds(3))).isEmpty();
            long fetches = cluster.requestsHandled("FETCH") - before;
            assertThat(fetches).as("fetch requests in 3 s with max.wait.ms=1000").isBetween(1L, 6L);
        }
    }

    @Test
    void aRecordProducedDuringTheWaitIsReturnedAtOnce() {
        KafkaConsumer<String, String> consumer = consumer(60_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
            List<ConsumerRecord<String, String>> received = new ArrayList<>();
            Thread poller = new Thread(() -> consumer.poll(Duration.ofSeconds(30)).forEach(received::add));
            poller.start();
            // The consumer's fetch is parked for up to 60 s; only the append can end it within the poll's 30 s.
            await().atMost(Duration.ofSeconds(20)).until(() -> cluster.parkedRequests() == 1);
            producer.send(new ProducerRecord<>("quiet", 0, "k", "woken"));
            await().atMost(Duration.ofSeconds(25)).until(() -> !poller.isAlive());
            assertThat(received).extracting(ConsumerRecord::value).containsExactly("woken");
        } finally {
            // The consumer's next fetch is parked for a minute; closing the fetch session would queue behind it.
            consumer.close(Duration.ZERO);
        }
    }
}
