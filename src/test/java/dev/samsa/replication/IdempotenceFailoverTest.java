package dev.samsa.replication;

import static dev.samsa.replication.ScenarioSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.PartitionView;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Issue 11's "idempotence across failover": an idempotent producer with retries keeps sending, five requests in
 * flight, while the partition's leader crashes 20 times; the log ends up holding every record once, in order. A retry
 * that reaches a new leader is recognised as a duplicate because followers keep the producer state of what they
 * replicate, and a restarted broker rebuilds it from its log.
 */
class IdempotenceFailoverTest {

    private static final String TOPIC = "payments";
    private static final int CRASHES = 20;

    @Test
    void anIdempotentProducerWritesEveryRecordExactlyOnceWhileItsLeaderCrashes20Times() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(11).topic(TOPIC, 1, 3)
                .brokerConfig("min.insync.replicas", "2").start()) {
            PartitionView partition = cluster.partition(TOPIC, 0);
            AtomicInteger acknowledged = new AtomicInteger();
            ConcurrentLinkedQueue<Exception> failures = new ConcurrentLinkedQueue<>();
            AtomicBoolean sending = new AtomicBoolean(true);
            AtomicInteger sent = new AtomicInteger();

            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config(cluster))) {
                Thread sender = new Thread(() -> {
                    Semaphore inFlight = new Semaphore(100);
                    while (sending.get()) {
                        inFlight.acquireUninterruptibly();
                        int i = sent.getAndIncrement();
                        producer.send(new ProducerRecord<>(TOPIC, 0, null, "v-" + i), (metadata, e) -> {
                            if (e != null) {
                                failures.add(e);
                            } else {
                                acknowledged.incrementAndGet();
                            }
                            inFlight.release();
                        });
                    }
                }, "idempotent-sender");
                sender.start();

                for (int crash = 0; crash < CRASHES; crash++) {
                    int before = acknowledged.get();
                    await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.get() > before + 20);
                    int leader = partition.leader();
                    cluster.broker(leader).crash();
                    await().atMost(Duration.ofSeconds(30)).until(() -> partition.leader() != leader && partition.leader() >= 0);
                    cluster.broker(leader).restart();
                    await().atMost(Duration.ofSeconds(30)).until(() -> partition.isr().size() == 3);
                }

                sending.set(false);
                sender.join(30_000);
                producer.flush();
            }

            assertThat(failures).isEmpty();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < sent.get(); i++) {
                expected.add("v-" + i);
            }
            assertThat(acknowledged.get()).isEqualTo(sent.get());
            List<String> log = readAll(cluster, TOPIC);
            assertThat(log).as("no duplicate, no gap, in order").isEqualTo(expected);
            assertThat(partition.lastStableOffset()).as("no transaction: the LSO is the high watermark")
                    .isEqualTo(partition.highWatermark()).isEqualTo(sent.get());
        }
    }

    private static Map<String, Object> config(KafkaCluster cluster) {
        Map<String, Object> config = cluster.producerConfig();
        config.put("enable.idempotence", "true");
        config.put("acks", "all");
        config.put("linger.ms", "1");
        config.put("retries", Integer.toString(Integer.MAX_VALUE));
        config.put("delivery.timeout.ms", "60000");
        config.put("request.timeout.ms", "5000");
        config.put("retry.backoff.ms", "10");
        config.put("metadata.max.age.ms", "500");
        return config;
    }
}
