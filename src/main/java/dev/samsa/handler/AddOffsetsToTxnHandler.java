package dev.samsa.handler;

import dev.samsa.coordinator.CoordinatorRuntime;
import dev.samsa.group.GroupCoordinator;
import dev.samsa.wire.KafkaRequest;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * AddOffsetsToTxn v0-4: adds the group's {@code __consumer_offsets} partition (Kafka's partitionFor(groupId), with
 * offsets.topic.num.partitions when the topic does not exist yet) to the transaction, so that its offsets commit or
 * abort with it. PRODUCER_FENCED shows as INVALID_PRODUCER_EPOCH below v2, as Kafka answers old clients.
 */
final class AddOffsetsToTxnHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.ADD_OFFSETS_TO_TXN;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        AddOffsetsToTxnRequestData data = request.data();
        broker.requireTransactionalId(request, data.transactionalId());
        broker.requireGroup(request, AclOperation.READ, data.groupId());
        var offsetsTopic = broker.cluster().metadata().topic(GroupCoordinator.OFFSETS_TOPIC);
        int partitions = offsetsTopic != null ? offsetsTopic.partitions().size() : broker.configs().getInt("offsets.topic.num.partitions");
        TopicPartition offsets = new TopicPartition(GroupCoordinator.OFFSETS_TOPIC, CoordinatorRuntime.partitionFor(data.groupId(), partitions));
        broker.transactions().addPartitions(broker.brokerId(), data.transactionalId(), data.producerId(), data.producerEpoch(),
                Set.of(offsets), (short) 0, error -> {
                    Errors answer = error == Errors.PRODUCER_FENCED && request.version() < 2 ? Errors.INVALID_PRODUCER_EPOCH : error;
                    request.respond(new AddOffsetsToTxnResponseData().setErrorCode(answer.code()));
                });
    }
}
