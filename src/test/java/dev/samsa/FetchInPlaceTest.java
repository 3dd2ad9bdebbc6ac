package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.Security.Protocol;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Fetched records go from the leader's mapping to the socket in place, and followers copy the leader's mapped bytes
 * into their own: over several MiB (so reads cross the mapping's 1 MiB chunks) every record arrives as it was sent,
 * from the leader, over TLS (which copies through its stream), and from a follower that became leader.
 */
class FetchInPlaceTest {

    private static final int RECORDS = 4000;
    private static final int VALUE_BYTES = 1000;

    @Test
    void everyRecordArrivesIntactFromTheLeaderAndFromAFollowerThatTookOver() {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).topic("orders", 1, 3).start()) {
            produce(cluster.producerConfig());
            assertReadsBack(cluster.consumerConfig(null));

            int leader = cluster.partition("orders", 0).leader();
            cluster.broker(leader).crash();
            await().atMost(Duration.ofSeconds(10)).until(() -> cluster.partition("orders", 0).leader() != leader);

            assertReadsBack(cluster.consumerConfig(null));
        }
    }

    @Test
    void everyRecordArrivesIntactOverTls() {
        try (KafkaCluster cluster = KafkaCluster.builder().security(Security.listeners(Protocol.SSL)).topic("orders", 1, 1)
                .start()) {
            produce(cluster.producerConfig());
            assertReadsBack(cluster.consumerConfig(null));
        }
    }

    private static void produce(Map<String, Object> config) {
        config.put("linger.ms", "5");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>("orders", 0, null, value(i)));
            }
            producer.flush();
        }
    }

    private static void assertReadsBack(Map<String, Object> config) {
        Map<String, Object> consumerConfig = new HashMap<>(config);
        consumerConfig.remove("key.deserializer");
        consumerConfig.remove("value.deserializer");
        TopicPartition tp = new TopicPartition("orders", 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long[] next = {0};
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                    assertThat(record.offset()).isEqualTo(next[0]);
                    assertThat(record.value()).as("record %d", record.offset()).isEqualTo(value((int) record.offset()));
                    next[0]++;
                }
                return next[0] == RECORDS;
            });
        }
    }

    /** Bytes that differ from record to record and along each record, so that a shifted or stale byte shows. */
    private static byte[] value(int i) {
        byte[] value = new byte[VALUE_BYTES];
        for (int b = 0; b < value.length; b++) {
            value[b] = (byte) (i * 31 + b * 7);
        }
        return value;
    }
}
