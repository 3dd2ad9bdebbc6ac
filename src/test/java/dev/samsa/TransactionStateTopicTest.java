package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.junit.jupiter.api.Test;

/**
 * {@code __transaction_state} is created on first use, with transaction.state.log.num.partitions (small in Samsa),
 * a replication factor of min(3, brokers) and transaction.state.log.min.isr capped by it, so one broker is enough.
 */
class TransactionStateTopicTest {

    private static final String TOPIC = "__transaction_state";

    @Test
    void anInitProducerIdBeforeAnyFindCoordinatorCreatesTheTopicOnASingleBroker() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().start();
             RawConnection c = RawConnection.connect(cluster.broker(1));
             Admin admin = Admin.create(cluster.adminConfig())) {
            InitProducerIdResponse response = c.send(new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
                    .setTransactionalId("tx-first").setTransactionTimeoutMs(60_000)).build((short) 5));

            assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
            assertThat(response.data().producerEpoch()).isZero();
            assertLayout(admin, 5, 1, "1");
        }
    }

    @Test
    void onThreeBrokersTheTopicHasThreeReplicasAndKafkasMinIsr() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).brokerConfig("transaction.state.log.num.partitions", "4").start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            Map<String, Object> config = cluster.producerConfig();
            config.put("transactional.id", "tx-first");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
                producer.initTransactions();
            }
            assertLayout(admin, 4, 3, "2");
        }
    }

    private static void assertLayout(Admin admin, int partitions, int replicas, String minIsr) throws Exception {
        TopicDescription topic = admin.describeTopics(Set.of(TOPIC)).allTopicNames().get().get(TOPIC);
        assertThat(topic.isInternal()).isTrue();
        assertThat(topic.partitions()).hasSize(partitions)
                .allSatisfy(p -> assertThat(p.replicas()).hasSize(replicas));
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
        Config configs = admin.describeConfigs(List.of(resource)).all().get().get(resource);
        assertThat(configs.get("min.insync.replicas").value()).isEqualTo(minIsr);
        assertThat(configs.get("cleanup.policy").value()).isEqualTo("compact");
    }
}
