package dev.samsa.txn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.event.TxnStateChanged;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** transactional.id.expiration.ms is an age deadline on the cluster clock, counted from the id's last transition. */
class TransactionalIdExpirationTest {

    @Test
    void anIdleTransactionalIdExpiresAndComesBackWithANewProducerId() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(3).topic("orders", 1, 1)
                .brokerConfig("transactional.id.expiration.ms", "60000")
                .clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z"))).start()) {
            try (KafkaProducer<String, String> producer = TxnClients.transactionalProducer(cluster, "tx-idle", Map.of())) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>("orders", "one"));
                producer.commitTransaction();
            }
            cluster.events().await(TxnStateChanged.class, e -> e.state().equals("CompleteCommit"), Duration.ofSeconds(10));
            long firstProducerId = last(cluster).producerId();

            // The commit completed at the frozen cluster time: 60 s later, to the millisecond, the id expires.
            cluster.clock().advance(Duration.ofMillis(59_999));
            assertThat(last(cluster).state()).isEqualTo("CompleteCommit");
            cluster.clock().advance(Duration.ofMillis(1));
            assertThat(last(cluster).state()).isEqualTo("Dead");

            try (KafkaProducer<String, String> producer = TxnClients.transactionalProducer(cluster, "tx-idle", Map.of())) {
                producer.initTransactions();
            }
            TxnStateChanged reborn = last(cluster);
            assertThat(reborn.state()).isEqualTo("Empty");
            assertThat(reborn.producerEpoch()).isZero();
            assertThat(reborn.producerId()).isNotEqualTo(firstProducerId);
        }
    }

    private static TxnStateChanged last(KafkaCluster cluster) {
        List<TxnStateChanged> changes = cluster.events().events(TxnStateChanged.class);
        return changes.get(changes.size() - 1);
    }
}
