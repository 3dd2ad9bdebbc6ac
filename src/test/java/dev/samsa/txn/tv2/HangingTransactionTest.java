package dev.samsa.txn.tv2;

import dev.samsa.txn.TxnClients;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.PartitionView;
import dev.samsa.RawConnection;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.Test;

/**
 * The hanging transaction KIP-890 closes: a produce of a transaction, sent before its abort, reaches the partition
 * leader after the abort's marker. Before KIP-890 the leader appends it, which opens a transaction in the partition
 * that no marker will ever end: the last stable offset stops there, and read_committed consumers see nothing after it
 * until an operator aborts it with {@code Admin.abortTransaction} (kafka-transactions.sh --abort). The late produce is
 * sent by hand on its own connection, exactly as the producer built it (same producer id, epoch and next sequence),
 * so that the schedule is the same every run.
 *
 * <p>To get the pre-KIP-890 broker, the cluster runs transaction version 1 with
 * transaction.partition.verification.enable=false: KIP-890 part 1 (Kafka 3.6+) made the leader verify with the
 * coordinator that the partition is in an open transaction, which already refuses the late produce under version 1
 * (the last test here); part 2 (transaction version 2) makes the produce itself add the partition, with the epoch the
 * abort bumped past, so no config can turn the protection off.
 */
class HangingTransactionTest {

    private static final String TOPIC = "orders";
    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);

    @Test
    void underVersion1WithoutVerificationALateProduceHangsTheLastStableOffsetUntilAdminAbortsTheTransaction() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).transactionVersion(1)
                .brokerConfig("transaction.partition.verification.enable", "false").topic(TOPIC, 1, 3).start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            ProducerState beforeAbort = abortedTransactionWithALateProduceInFlight(cluster, admin);

            PartitionProduceResponse late = lateProduce(cluster, 11, beforeAbort);
            assertThat(Errors.forCode(late.errorCode())).isEqualTo(Errors.NONE);
            commitAfterwards(cluster);

            PartitionView partition = cluster.partition(TOPIC, 0);
            assertThat(partition.lastStableOffset()).isEqualTo(late.baseOffset()).isLessThan(partition.highWatermark());
            assertThat(TxnClients.readAll(cluster, TOPIC, "read_committed")).isEmpty();
            assertThat(TxnClients.readAll(cluster, TOPIC, "read_uncommitted")).containsExactly("early", "late", "after");
            ProducerState hanging = producer(admin, beforeAbort.producerId());
            assertThat(hanging.currentTransactionStartOffset()).hasValue(late.baseOffset());

            // Nothing on the brokers' side will ever end it; the operator does, as kafka-transactions.sh --abort.
            admin.abortTransaction(new AbortTransactionSpec(PARTITION, hanging.producerId(), (short) hanging.producerEpoch(),
                    hanging.coordinatorEpoch().orElse(-1))).all().get();
            await().until(() -> partition.lastStableOffset() == partition.highWatermark());
            assertThat(TxnClients.readAll(cluster, TOPIC, "read_committed")).containsExactly("after");
            assertThat(producer(admin, beforeAbort.producerId()).currentTransactionStartOffset()).isEmpty();
        }
    }

    @Test
    void underVersion2TheLateProduceIsFencedByTheEpochTheAbortBumpedAndTheLastStableOffsetAdvances() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3)
                .brokerConfig("transaction.partition.verification.enable", "false").topic(TOPIC, 1, 3).start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            ProducerState beforeAbort = abortedTransactionWithALateProduceInFlight(cluster, admin);

            PartitionProduceResponse late = lateProduce(cluster, 12, beforeAbort);
            assertThat(Errors.forCode(late.errorCode())).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
            commitAfterwards(cluster);

            PartitionView partition = cluster.partition(TOPIC, 0);
            assertThat(partition.lastStableOffset()).isEqualTo(partition.highWatermark());
            assertThat(TxnClients.readAll(cluster, TOPIC, "read_committed")).containsExactly("after");
            assertThat(TxnClients.readAll(cluster, TOPIC, "read_uncommitted")).containsExactly("early", "after");
            assertThat(producer(admin, beforeAbort.producerId()).currentTransactionStartOffset()).isEmpty();
        }
    }

    @Test
    void underVersion1PartitionVerificationAlreadyRefusesTheLateProduce() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).transactionVersion(1).topic(TOPIC, 1, 3).start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            ProducerState beforeAbort = abortedTransactionWithALateProduceInFlight(cluster, admin);

            // The coordinator finds the partition in no open transaction: Produce v11 answers TRANSACTION_ABORTABLE.
            PartitionProduceResponse late = lateProduce(cluster, 11, beforeAbort);
            assertThat(Errors.forCode(late.errorCode())).isEqualTo(Errors.TRANSACTION_ABORTABLE);
            commitAfterwards(cluster);

            PartitionView partition = cluster.partition(TOPIC, 0);
            assertThat(partition.lastStableOffset()).isEqualTo(partition.highWatermark());
            assertThat(TxnClients.readAll(cluster, TOPIC, "read_committed")).containsExactly("after");
        }
    }

    /**
     * A producer writes "early" in a transaction and aborts it; returns the partition's view of that producer from
     * before the abort, which is what its second, late batch was built with. Waits until the abort's marker is written.
     */
    private static ProducerState abortedTransactionWithALateProduceInFlight(KafkaCluster cluster, Admin admin) throws Exception {
        try (KafkaProducer<String, String> producer = TxnClients.transactionalProducer(cluster, "tx-late")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, "early")).get();
            ProducerState beforeAbort = admin.describeProducers(List.of(PARTITION)).partitionResult(PARTITION).get()
                    .activeProducers().get(0);
            producer.abortTransaction();
            PartitionView partition = cluster.partition(TOPIC, 0);
            await().until(() -> partition.lastStableOffset() == partition.highWatermark() && partition.highWatermark() == 2);
            return beforeAbort;
        }
    }

    /**
     * The batch the producer sent before its abort, arriving now at the leader: its transactional id, producer id and
     * epoch, and the sequence after "early".
     */
    private static PartitionProduceResponse lateProduce(KafkaCluster cluster, int version, ProducerState producer) throws Exception {
        MemoryRecords records = MemoryRecords.withTransactionalRecords(Compression.NONE, producer.producerId(),
                (short) producer.producerEpoch(), producer.lastSequence() + 1,
                new SimpleRecord(System.currentTimeMillis(), null, "late".getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData().setName(TOPIC);
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records));
        ProduceRequestData data = new ProduceRequestData().setTransactionalId("tx-late").setAcks((short) -1).setTimeoutMs(10_000);
        data.topicData().add(topic);
        try (RawConnection leader = RawConnection.connect(cluster.broker(cluster.partition(TOPIC, 0).leader()))) {
            ProduceResponse response = leader.send(ProduceRequest.builder(data).build((short) version));
            return response.data().responses().iterator().next().partitionResponses().get(0);
        }
    }

    /** Another producer commits "after" once the late produce is answered, and its marker is written. */
    private static void commitAfterwards(KafkaCluster cluster) {
        try (KafkaProducer<String, String> producer = TxnClients.transactionalProducer(cluster, "tx-after")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, "after"));
            producer.commitTransaction();
        }
        await().until(() -> cluster.events().events(dev.samsa.event.TxnMarkerWritten.class).stream().anyMatch(m -> m.committed()));
    }

    private static ProducerState producer(Admin admin, long producerId) throws Exception {
        return admin.describeProducers(List.of(PARTITION)).partitionResult(PARTITION).get().activeProducers().stream()
                .filter(p -> p.producerId() == producerId).findFirst().orElseThrow();
    }
}
