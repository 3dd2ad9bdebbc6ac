package dev.samsa.txn.tv2;

import dev.samsa.txn.TxnClients;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.GroupPartition;
import dev.samsa.KafkaCluster;
import dev.samsa.RawConnection;
import dev.samsa.TransactionView;
import dev.samsa.TxnState;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.Test;

/**
 * Produce v12 opens the transaction on the partition leader, as Kafka's ReplicaManager does it: the leader has the
 * coordinator add the partition (Ongoing, replicated) before it appends; a follower refuses the produce with
 * NOT_LEADER_OR_FOLLOWER before asking anyone, so the partition stays out of the transaction.
 */
class ImplicitAddTest {

    @Test
    void theLeaderAddsThePartitionBeforeItAppendsAndAFollowerAddsNothing() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).topic("orders", 1, 3).start();
             KafkaProducer<String, String> producer = TxnClients.transactionalProducer(cluster, "tx-add")) {
            producer.initTransactions();
            TransactionView initialised = cluster.transaction("tx-add");
            int leader = cluster.partition("orders", 0).leader();
            int follower = leader % 3 + 1;

            assertThat(produce(cluster, follower, initialised)).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
            assertThat(cluster.transaction("tx-add").state()).isEqualTo(TxnState.EMPTY);
            assertThat(cluster.transaction("tx-add").partitions()).isEmpty();

            assertThat(produce(cluster, leader, initialised)).isEqualTo(Errors.NONE);
            TransactionView open = cluster.transaction("tx-add");
            assertThat(open.state()).isEqualTo(TxnState.ONGOING);
            assertThat(open.partitions()).containsExactly(new GroupPartition("orders", 0));
            assertThat(cluster.partition("orders", 0).lastStableOffset()).as("the transaction is open in the log").isZero();
        }
    }

    /** A Produce v12 of one transactional record of the producer to "orders"-0, sent to {@code brokerId}. */
    private static Errors produce(KafkaCluster cluster, int brokerId, TransactionView producer) throws Exception {
        MemoryRecords records = MemoryRecords.withTransactionalRecords(Compression.NONE, producer.producerId(),
                producer.producerEpoch(), 0, new SimpleRecord(System.currentTimeMillis(), null, "v".getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName("orders");
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
        ProduceRequestData data = new ProduceRequestData().setTransactionalId("tx-add").setAcks((short) -1).setTimeoutMs(10_000);
        data.topicData().add(topic);
        try (RawConnection connection = RawConnection.connect(cluster.broker(brokerId))) {
            ProduceResponse response = connection.send(ProduceRequest.builder(data).build((short) 12));
            return Errors.forCode(response.data().responses().iterator().next().partitionResponses().get(0).errorCode());
        }
    }
}
