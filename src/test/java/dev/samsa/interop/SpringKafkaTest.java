package dev.samsa.interop;

import static dev.samsa.junit.SamsaConditions.awaitCluster;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster;
import dev.samsa.junit.Topic;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.support.SendResult;

/**
 * Spring Kafka without Spring Boot against a three-broker cluster: a KafkaTemplate sends, a
 * ConcurrentMessageListenerContainer receives, both on factories built from the cluster's ready-made configs. Then a
 * second container joins the same group, the partitions are split between them, and nothing sent is lost.
 */
@EmbeddedKafkaCluster(brokers = 3, topics = {@Topic(name = "orders", partitions = 6, replicationFactor = 3),
        @Topic(name = "orders-rebalance", partitions = 6, replicationFactor = 3)})
class SpringKafkaTest {

    private static final int N = 300;

    private final List<ConcurrentMessageListenerContainer<String, String>> containers = new ArrayList<>();
    private DefaultKafkaProducerFactory<String, String> producerFactory;

    @AfterEach
    void stop() {
        containers.forEach(ConcurrentMessageListenerContainer::stop);
        if (producerFactory != null) {
            producerFactory.destroy();
        }
    }

    private KafkaTemplate<String, String> template(KafkaCluster cluster) {
        producerFactory = new DefaultKafkaProducerFactory<>(cluster.producerConfig());
        return new KafkaTemplate<>(producerFactory);
    }

    private ConcurrentMessageListenerContainer<String, String> container(KafkaCluster cluster, String group,
                                                                         String topic, int concurrency, List<String> received) {
        DefaultKafkaConsumerFactory<String, String> consumerFactory =
                new DefaultKafkaConsumerFactory<>(cluster.consumerConfig(group));
        ContainerProperties properties = new ContainerProperties(topic);
        properties.setMessageListener((MessageListener<String, String>) (ConsumerRecord<String, String> r) ->
                received.add(r.value()));
        var container = new ConcurrentMessageListenerContainer<>(consumerFactory, properties);
        container.setConcurrency(concurrency);
        container.setBeanName(group + "-" + containers.size());
        containers.add(container);
        container.start();
        return container;
    }

    private static void send(KafkaTemplate<String, String> template, String topic, int from, int to) {
        List<CompletableFuture<SendResult<String, String>>> sent = new ArrayList<>();
        for (int i = from; i < to; i++) {
            sent.add(template.send(topic, "key-" + i, "order-" + i));
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).join();
    }

    private static List<String> values(int from, int to) {
        return IntStream.range(from, to).mapToObj(i -> "order-" + i).toList();
    }

    private static Set<TopicPartition> assigned(ConcurrentMessageListenerContainer<String, String> container) {
        Collection<TopicPartition> partitions = container.getAssignedPartitions();
        return partitions == null ? Set.of() : new HashSet<>(partitions);
    }

    @Test
    void theListenerReceivesEveryRecordOnce(KafkaCluster cluster) {
        List<String> received = new CopyOnWriteArrayList<>();
        var container = container(cluster, "spring-once", "orders", 2, received);
        awaitCluster().until(() -> assigned(container).size() == 6);

        send(template(cluster), "orders", 0, N);

        awaitCluster().until(() -> received.size() >= N);
        assertThat(received).containsExactlyInAnyOrderElementsOf(values(0, N));
        assertThat(cluster.group("spring-once").members()).hasSize(2);
    }

    @Test
    void aSecondContainerInTheGroupTakesHalfThePartitionsAndNothingIsLost(KafkaCluster cluster) {
        String group = "spring-rebalance";
        String topic = "orders-rebalance";
        List<String> first = new CopyOnWriteArrayList<>();
        List<String> second = new CopyOnWriteArrayList<>();
        var one = container(cluster, group, topic, 1, first);
        awaitCluster().until(() -> assigned(one).size() == 6);
        KafkaTemplate<String, String> template = template(cluster);
        send(template, topic, 0, N);
        awaitCluster().until(() -> first.size() >= N);

        // Records keep coming while the second container joins and the group rebalances.
        send(template, topic, N, N + N / 2);
        var two = container(cluster, group, topic, 1, second);
        send(template, topic, N + N / 2, 2 * N);
        awaitCluster().until(() -> assigned(one).size() == 3 && assigned(two).size() == 3);
        Set<TopicPartition> all = new HashSet<>(assigned(one));
        all.addAll(assigned(two));
        assertThat(all).hasSize(6);

        send(template, topic, 2 * N, 3 * N);
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        awaitCluster().until(() -> {
            seen.clear();
            first.forEach(v -> seen.merge(v, 1, Integer::sum));
            second.forEach(v -> seen.merge(v, 1, Integer::sum));
            return seen.keySet().containsAll(values(0, 3 * N));
        });
        assertThat(seen.keySet()).containsExactlyInAnyOrderElementsOf(values(0, 3 * N));
        assertThat(second).as("the second container got records of its partitions").isNotEmpty();
        String twice = seen.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey)
                .sorted().collect(Collectors.joining(", "));
        // Spring commits what the first container processed before it gives partitions up, so none is redelivered.
        assertThat(twice).as("records delivered twice").isEmpty();
        assertThat(cluster.group(group).members()).hasSize(2);
    }
}
