package dev.samsa.group.modern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Server-side regex subscription (KIP-848, {@code subscribedTopicRegex}): a topic created after the group is Stable
 * and matching the pattern is assigned to the member at its next heartbeat, without any client action but polling;
 * partitions added to a subscribed topic are assigned the same way.
 */
class ConsumerProtocolRegexTest {

    @Test
    void aMatchingTopicCreatedLaterIsAssignedWithoutAClientRestart() throws Exception {
        try (KafkaCluster cluster = ModernConsumers.fastHeartbeats(KafkaCluster.builder().brokers(3).seed(11)
                .topic("orders-eu", 2, 3).topic("payments", 2, 3)).start();
             Admin admin = Admin.create(cluster.adminConfig());
             KafkaConsumer<String, String> consumer = ModernConsumers.consumer(cluster, "billing", Map.of())) {
            consumer.subscribe(new SubscriptionPattern("orders-.*"));
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1)).untilAsserted(() -> {
                consumer.poll(Duration.ofMillis(20));
                assertThat(consumer.assignment()).containsExactlyInAnyOrder(new TopicPartition("orders-eu", 0),
                        new TopicPartition("orders-eu", 1));
                assertThat(cluster.group("billing").state()).isEqualTo(dev.samsa.GroupState.STABLE);
            });

            admin.createTopics(List.of(new NewTopic("orders-us", 3, (short) 3))).all().get();
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1)).untilAsserted(() -> {
                consumer.poll(Duration.ofMillis(20));
                assertThat(consumer.assignment()).as("orders-us assigned, payments not").containsExactlyInAnyOrder(
                        new TopicPartition("orders-eu", 0), new TopicPartition("orders-eu", 1),
                        new TopicPartition("orders-us", 0), new TopicPartition("orders-us", 1), new TopicPartition("orders-us", 2));
            });
        }
    }

    @Test
    void partitionsAddedToASubscribedTopicAreAssignedWithoutAClientRestart() throws Exception {
        try (KafkaCluster cluster = ModernConsumers.fastHeartbeats(KafkaCluster.builder().brokers(3).seed(13)
                .topic("orders", 2, 3)).start();
             Admin admin = Admin.create(cluster.adminConfig());
             KafkaConsumer<String, String> consumer = ModernConsumers.consumer(cluster, "billing", Map.of())) {
            consumer.subscribe(List.of("orders"));
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1)).untilAsserted(() -> {
                consumer.poll(Duration.ofMillis(20));
                assertThat(consumer.assignment()).hasSize(2);
            });
            int epoch = cluster.group("billing").generation();

            admin.createPartitions(Map.of("orders", NewPartitions.increaseTo(4))).all().get();
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1)).untilAsserted(() -> {
                consumer.poll(Duration.ofMillis(20));
                assertThat(consumer.assignment()).hasSize(4);
            });
            assertThat(cluster.group("billing").generation()).as("a new group epoch").isGreaterThan(epoch);
        }
    }
}
