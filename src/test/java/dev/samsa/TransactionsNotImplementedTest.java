package dev.samsa;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.Test;

/** Until transactions exist, a transactional producer learns it at once rather than retrying for ever. */
class TransactionsNotImplementedTest {

    @Test
    void aTransactionalProducerFailsFastWithAMessageSayingWhy() {
        try (KafkaCluster cluster = KafkaCluster.builder().topic("t", 1, 1).start()) {
            Map<String, Object> config = cluster.producerConfig();
            config.put("transactional.id", "tx-1");
            config.put("max.block.ms", "60000");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
                assertThatThrownBy(producer::initTransactions).isInstanceOf(KafkaException.class)
                        .hasMessageContaining("Samsa does not implement transactions yet");
            }
        }
    }
}
