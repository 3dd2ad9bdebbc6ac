package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.Test;

/**
 * What Fetch puts on the wire for transactions, at the oldest and newest version served: read_committed stops at the
 * last stable offset and names the aborted transactions of the range; read_uncommitted reads to the high watermark and
 * gets a null list, as Kafka's KafkaApis sends it.
 */
class ReadCommittedFetchWireTest {

    private static final String TOPIC = "ledger";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @Test
    void shouldStopAtTheLastStableOffsetAndNameAbortedTransactionsOnlyForReadCommitted() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(9).topic(TOPIC, 1, 1).start()) {
            Map<String, Object> config = cluster.producerConfig();
            config.put("transactional.id", "ledger-writer");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config);
                 RawConnection connection = RawConnection.connect(cluster.broker(1))) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(TOPIC, 0, null, "aborted")).get();
                producer.abortTransaction();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(TOPIC, 0, null, "committed")).get();
                producer.commitTransaction();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(TOPIC, 0, null, "open")).get();
                // aborted 0, its marker 1, committed 2, its marker 3, open 4
                long open = 4;
                PartitionView partition = cluster.partition(TOPIC, 0);
                await().until(() -> partition.highWatermark() == open + 1);
                assertThat(partition.lastStableOffset()).isEqualTo(open);
                Uuid topicId = topicId(connection);

                for (short version : List.of((short) 4, connection.latestVersion(ApiKeys.FETCH))) {
                    FetchResponseData.PartitionData committed = fetch(connection, version, topicId, IsolationLevel.READ_COMMITTED);
                    assertThat(committed.lastStableOffset()).as("v%d", version).isEqualTo(open);
                    assertThat(committed.highWatermark()).isEqualTo(open + 1);
                    assertThat(lastOffsets(committed)).as("v%d: up to the LSO", version).containsExactly(0L, 1L, 2L, 3L);
                    assertThat(committed.abortedTransactions()).as("v%d", version).singleElement()
                            .satisfies(txn -> assertThat(txn.firstOffset()).isZero());

                    FetchResponseData.PartitionData uncommitted = fetch(connection, version, topicId, IsolationLevel.READ_UNCOMMITTED);
                    assertThat(uncommitted.lastStableOffset()).isEqualTo(open);
                    assertThat(lastOffsets(uncommitted)).as("v%d: up to the HW", version).containsExactly(0L, 1L, 2L, 3L, 4L);
                    assertThat(uncommitted.abortedTransactions()).as("v%d", version).isNull();
                }
                producer.commitTransaction();
            }
        }
    }

    private static Uuid topicId(RawConnection connection) throws IOException {
        MetadataResponse metadata = connection.send(new MetadataRequest.Builder(List.of(TOPIC), false)
                .build(connection.latestVersion(ApiKeys.METADATA)));
        return metadata.topicMetadata().iterator().next().topicId();
    }

    private static FetchResponseData.PartitionData fetch(RawConnection connection, short version, Uuid topicId,
                                                         IsolationLevel isolation) throws IOException {
        LinkedHashMap<TopicPartition, FetchRequest.PartitionData> data = new LinkedHashMap<>();
        data.put(TP, new FetchRequest.PartitionData(topicId, 0, -1L, 1 << 20, Optional.empty()));
        FetchResponse response = connection.send(FetchRequest.Builder.forConsumer(version, 0, 0, data)
                .isolationLevel(isolation).build(version));
        return response.data().responses().get(0).partitions().get(0);
    }

    private static List<Long> lastOffsets(FetchResponseData.PartitionData data) {
        List<Long> out = new ArrayList<>();
        for (RecordBatch batch : FetchResponse.recordsOrFail(data).batches()) {
            out.add(batch.lastOffset());
        }
        return out;
    }
}
