package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * What the bad-input tests keep around every case: a cluster, a healthy producer on a connection of its own (the
 * canary) that must go on producing, and every exception that escaped any thread, which must be none at the end.
 */
final class CanaryCluster implements AutoCloseable {

    private final List<String> uncaught = new CopyOnWriteArrayList<>();
    private final Thread.UncaughtExceptionHandler previousHandler;
    private final String topic;
    private final KafkaCluster cluster;
    private final KafkaProducer<String, String> producer;
    private long lastOffset = -1;

    /** Starts {@code builder}'s cluster, which must have {@code topic}, and the canary producing to it. */
    CanaryCluster(KafkaCluster.Builder builder, String topic) {
        this.previousHandler = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> uncaught.add(thread.getName() + ": " + e));
        this.topic = topic;
        this.cluster = builder.start();
        this.producer = new KafkaProducer<>(cluster.producerConfig());
    }

    KafkaCluster cluster() {
        return cluster;
    }

    KafkaProducer<String, String> producer() {
        return producer;
    }

    /** The canary's next record is acknowledged, at an offset past its last one. */
    void assertStillProduces() throws Exception {
        long offset = producer.send(new ProducerRecord<>(topic, "still alive")).get().offset();
        assertThat(offset).isGreaterThan(lastOffset);
        lastOffset = offset;
    }

    /** Stops the producer and the cluster, then fails if any thread died of an uncaught exception meanwhile. */
    @Override
    public void close() {
        try {
            producer.close(Duration.ofSeconds(10));
            cluster.close();
            assertThat(uncaught).as("uncaught exceptions in any thread").isEmpty();
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previousHandler);
        }
    }
}
