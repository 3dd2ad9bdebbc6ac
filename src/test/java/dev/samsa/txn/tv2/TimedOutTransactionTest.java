package dev.samsa.txn.tv2;

import dev.samsa.txn.TxnClients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import dev.samsa.event.TxnMarkerWritten;
import dev.samsa.event.TxnStateChanged;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.junit.jupiter.api.Test;

/**
 * A transaction left open past transaction.timeout.ms under transaction version 2. The coordinator's abort bumps the
 * epoch once (its fence and its end are the same bump, as in Kafka's endTransaction with an epoch fence), so the
 * markers carry epoch 1. The producer still at epoch 0 then commits: Kafka 4.1 takes an epoch one below the stored one
 * for a retry, and a retried commit of what was aborted is INVALID_TXN_STATE, which the client raises as it is
 * (under version 1 the same producer gets ProducerFencedException: dev.samsa.txn.TransactionTimeoutTest).
 */
class TimedOutTransactionTest {

    @Test
    void theAbortBumpsTheEpochOnceAndTheLateCommitIsAnInvalidStateAsKafka41AnswersIt() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).topic("orders", 1, 3)
                .clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z"))).start()) {
            Map<String, Object> config = cluster.producerConfig();
            config.put("transactional.id", "tx-slow");
            config.put("transaction.timeout.ms", "10000");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("orders", "left-open")).get();

                cluster.clock().advance(Duration.ofMillis(10_001));
                cluster.events().await(TxnStateChanged.class, e -> e.state().equals("CompleteAbort"), Duration.ofSeconds(10));
                assertThat(cluster.events().events(TxnMarkerWritten.class)).singleElement().satisfies(m -> {
                    assertThat(m.committed()).isFalse();
                    assertThat(m.producerEpoch()).isEqualTo((short) 1);
                });

                assertThatThrownBy(producer::commitTransaction).isInstanceOf(InvalidTxnStateException.class);
                assertThat(TxnClients.readAll(cluster, "orders", "read_committed")).isEmpty();
            }
        }
    }
}
