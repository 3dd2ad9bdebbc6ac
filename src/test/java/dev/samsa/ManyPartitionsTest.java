package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;

import com.sun.management.UnixOperatingSystemMXBean;
import dev.samsa.log.store.MappedStores;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A topic of 2,000 partitions at replication factor 3 in one JVM: 6,000 replicas, which at Kafka's three files per
 * replica would hold 18,000 descriptors of a default limit of 20,000. A replica holds none: its log is mapped through a
 * channel closed at once and its indexes live in memory.
 */
class ManyPartitionsTest {

    private static final int PARTITIONS = 2_000;
    private static final int REPLICAS = PARTITIONS * 3;

    @Test
    void aTwoThousandPartitionTopicAtReplicationFactorThreeHoldsNoDescriptorPerReplica() throws Exception {
        assumeTrue(ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean, "needs Unix");
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).start()) {
            long before = openDescriptors();
            cluster.createTopic("wide", PARTITIONS, 3);

            // acks=all: once every send is answered, all three replicas of every partition hold their record.
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(cluster))) {
                List<Future<?>> sent = new ArrayList<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    sent.add(producer.send(new ProducerRecord<>("wide", p, null, "record-" + p)));
                }
                for (Future<?> send : sent) {
                    send.get();
                }
            }

            Map<Integer, String> read = new HashMap<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cluster.consumerConfig(null))) {
                List<TopicPartition> all = new ArrayList<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    all.add(new TopicPartition("wide", p));
                }
                consumer.assign(all);
                consumer.seekToBeginning(all);
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
                        read.put(record.partition(), record.value());
                    }
                    return read.size() == PARTITIONS;
                });
            }
            long after = openDescriptors();

            assertThat(read).containsEntry(0, "record-0").containsEntry(PARTITIONS - 1, "record-" + (PARTITIONS - 1));
            assertThat(after - before).as("descriptors opened for %d replicas that hold data (%d before)", REPLICAS, before)
                    .isLessThan(REPLICAS / 20);
        }
    }

    private static Map<String, Object> producerConfig(KafkaCluster cluster) {
        Map<String, Object> config = cluster.producerConfig();
        config.put("linger.ms", 5);
        // Thousands of partitions' first records each create a directory and a file: on a slow disk that can outlast
        // the default 30 s request timeout, and a retried produce only adds to the work.
        config.put("request.timeout.ms", 600_000);
        config.put("delivery.timeout.ms", 900_000);
        return config;
    }

    private static long openDescriptors() {
        MappedStores.detect().awaitReleased();
        return ((UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getOpenFileDescriptorCount();
    }
}
