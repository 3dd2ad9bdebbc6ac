package dev.samsa.txn.e2e;

import static dev.samsa.junit.SamsaConditions.awaitCluster;
import static dev.samsa.txn.TxnClients.partitions;
import static dev.samsa.txn.TxnClients.readAll;
import static dev.samsa.txn.TxnClients.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster;
import dev.samsa.junit.Topic;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.transaction.KafkaTransactionManager;

/**
 * Spring Kafka transactions without Spring Boot, on three brokers, as its reference documentation describes them:
 * {@code KafkaTemplate.executeInTransaction} commits when the callback returns and aborts when it throws; a listener
 * container with a {@code KafkaTransactionManager} runs each record in a transaction that holds what the listener sent
 * and the consumed offset, and a listener that throws rolls it back, after which the default after-rollback processor
 * seeks back so the record is delivered again.
 */
@EmbeddedKafkaCluster(brokers = 3, topics = {@Topic(name = "receipts", partitions = 1, replicationFactor = 3),
        @Topic(name = "invoices", partitions = 1, replicationFactor = 3),
        @Topic(name = "invoices-sent", partitions = 1, replicationFactor = 3)})
class SpringKafkaTransactionsTest {

    private final List<DefaultKafkaProducerFactory<String, String>> producerFactories = new ArrayList<>();
    private KafkaMessageListenerContainer<String, String> container;

    @AfterEach
    void stop() {
        if (container != null) {
            container.stop();
        }
        producerFactories.forEach(DefaultKafkaProducerFactory::destroy);
    }

    private DefaultKafkaProducerFactory<String, String> producerFactory(KafkaCluster cluster, String transactionIdPrefix) {
        var factory = new DefaultKafkaProducerFactory<String, String>(cluster.producerConfig());
        factory.setTransactionIdPrefix(transactionIdPrefix);
        producerFactories.add(factory);
        return factory;
    }

    @Test
    void executeInTransactionCommitsWhenTheCallbackReturnsAndAbortsWhenItThrows(KafkaCluster cluster) {
        var template = new KafkaTemplate<>(producerFactory(cluster, "receipts-tx-"));

        template.executeInTransaction(t -> {
            t.send("receipts", "r", "committed-1");
            t.send("receipts", "r", "committed-2");
            return null;
        });
        assertThatThrownBy(() -> template.executeInTransaction(t -> {
            // Acknowledged, so the record is in the log when the abort marker hides it (an abort drops unsent records).
            t.send("receipts", "r", "rolled-back").join();
            throw new IllegalStateException("the callback failed after sending");
        })).isInstanceOf(IllegalStateException.class);
        template.executeInTransaction(t -> t.send("receipts", "r", "committed-3"));

        List<TopicPartition> receipts = partitions("receipts", 1);
        awaitCluster().until(() -> cluster.partition("receipts", 0).lastStableOffset()
                == cluster.partition("receipts", 0).highWatermark());
        assertThat(values(readAll(cluster, IsolationLevel.READ_COMMITTED, receipts)))
                .containsExactly("committed-1", "committed-2", "committed-3");
        assertThat(values(readAll(cluster, IsolationLevel.READ_UNCOMMITTED, receipts)))
                .containsExactly("committed-1", "committed-2", "rolled-back", "committed-3");
    }

    @Test
    void aTransactionalListenerCommitsItsOutputWithTheOffsetAndRollsBackWhenItThrows(KafkaCluster cluster) {
        String group = "invoice-sender";
        var producerFactory = producerFactory(cluster, "invoices-tx-");
        var template = new KafkaTemplate<>(producerFactory);
        Map<String, Object> consumerConfig = cluster.consumerConfig(group);
        consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        ContainerProperties properties = new ContainerProperties("invoices");
        properties.setKafkaAwareTransactionManager(new KafkaTransactionManager<>(producerFactory));
        List<String> delivered = new CopyOnWriteArrayList<>();
        AtomicBoolean failedOnce = new AtomicBoolean();
        properties.setMessageListener((MessageListener<String, String>) (ConsumerRecord<String, String> r) -> {
            delivered.add(r.value());
            template.send("invoices-sent", r.key(), "sent-" + r.value()).join();
            if (r.value().equals("invoice-2") && failedOnce.compareAndSet(false, true)) {
                throw new IllegalStateException("first delivery of invoice-2 fails after sending");
            }
        });
        container = new KafkaMessageListenerContainer<>(new DefaultKafkaConsumerFactory<>(consumerConfig), properties);
        container.setBeanName(group);
        container.start();
        awaitCluster().until(() -> container.getAssignedPartitions() != null
                && container.getAssignedPartitions().size() == 1);

        var plainFactory = new DefaultKafkaProducerFactory<String, String>(cluster.producerConfig());
        producerFactories.add(plainFactory);
        var plain = new KafkaTemplate<>(plainFactory);
        for (int i = 1; i <= 3; i++) {
            plain.send("invoices", "i", "invoice-" + i).join();
        }

        TopicPartition invoices = new TopicPartition("invoices", 0);
        awaitCluster().until(() -> committedOffset(cluster, group, invoices) == 3);
        assertThat(delivered).containsExactly("invoice-1", "invoice-2", "invoice-2", "invoice-3");
        List<TopicPartition> sent = partitions("invoices-sent", 1);
        awaitCluster().until(() -> cluster.partition("invoices-sent", 0).lastStableOffset()
                == cluster.partition("invoices-sent", 0).highWatermark());
        assertThat(values(readAll(cluster, IsolationLevel.READ_COMMITTED, sent)))
                .containsExactly("sent-invoice-1", "sent-invoice-2", "sent-invoice-3");
        assertThat(values(readAll(cluster, IsolationLevel.READ_UNCOMMITTED, sent)))
                .containsExactly("sent-invoice-1", "sent-invoice-2", "sent-invoice-2", "sent-invoice-3");
    }

    /** The group's committed offset, read as a read_committed consumer reads it (stable offsets only). */
    private static long committedOffset(KafkaCluster cluster, String group, TopicPartition partition) {
        Map<String, Object> config = cluster.consumerConfig(group);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            OffsetAndMetadata committed = consumer.committed(Set.of(partition)).get(partition);
            return committed == null ? -1 : committed.offset();
        }
    }
}
