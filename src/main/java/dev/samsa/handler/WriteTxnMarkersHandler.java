package dev.samsa.handler;

import dev.samsa.cluster.DelayedOperation;
import dev.samsa.cluster.LogAppendResult;
import dev.samsa.cluster.Partition;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarker;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData.WritableTxnMarkerTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;

/**
 * WriteTxnMarkers v1 (kafka-clients 4.x encodes no other): appends each COMMIT or ABORT marker to its partitions on
 * this broker, as Kafka's handleWriteTxnMarkersRequest. Samsa's own coordinator writes its markers in-process; this is
 * the wire form that Admin.abortTransaction sends to a partition's leader to end a hanging transaction. Per partition:
 * UNKNOWN_TOPIC_OR_PARTITION for one this broker holds no replica of (as Kafka's onlinePartition), the append's
 * error (NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED), else the
 * outcome once replicated (markers are acks=all): NONE, NOT_ENOUGH_REPLICAS_AFTER_APPEND, or REQUEST_TIMED_OUT after
 * request.timeout.ms.
 */
final class WriteTxnMarkersHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.WRITE_TXN_MARKERS;
    }

    /** One marker appended to one partition, waiting for the high watermark to pass it. */
    private record Appended(long producerId, TopicPartition tp, long requiredOffset) {
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        // As Kafka: ALTER on the cluster, else CLUSTER_ACTION.
        if (!broker.authorizedQuietly(request, AclOperation.ALTER, ResourceType.CLUSTER, Acls.CLUSTER_NAME)) {
            broker.requireCluster(request, AclOperation.CLUSTER_ACTION);
        }
        WriteTxnMarkersRequestData data = request.data();
        Map<Long, Map<TopicPartition, Errors>> errors = new HashMap<>();
        List<Appended> appended = new ArrayList<>();
        for (WritableTxnMarker marker : data.markers()) {
            Map<TopicPartition, Errors> results = errors.computeIfAbsent(marker.producerId(), id -> new HashMap<>());
            for (TopicPartition tp : partitions(marker)) {
                Partition partition = broker.cluster().metadata().partition(tp);
                if (partition == null || !partition.replicas().contains(broker.brokerId())) {
                    results.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                    continue;
                }
                try {
                    LogAppendResult result = broker.replicaManager().appendTxnMarker(broker.brokerId(), tp,
                            marker.producerId(), marker.producerEpoch(), marker.coordinatorEpoch(), marker.transactionResult());
                    appended.add(new Appended(marker.producerId(), tp, result.lastOffset() + 1));
                } catch (ApiException e) {
                    results.put(tp, Errors.forException(e));
                }
            }
        }
        Set<TopicPartition> watched = new LinkedHashSet<>();
        appended.forEach(a -> watched.add(a.tp()));
        broker.cluster().purgatory().tryCompleteElseWatch(new DelayedMarkers(request, broker, appended, errors), watched,
                broker.configs().getInt("request.timeout.ms"), "write-txn-markers");
    }

    private static List<TopicPartition> partitions(WritableTxnMarker marker) {
        List<TopicPartition> tps = new ArrayList<>();
        for (WritableTxnMarkerTopic topic : marker.topics()) {
            topic.partitionIndexes().forEach(p -> tps.add(new TopicPartition(topic.name(), p)));
        }
        return tps;
    }

    /** acks=all for every appended marker, as Kafka appends them; then one response for the whole request. */
    private static final class DelayedMarkers extends DelayedOperation {
        private final KafkaRequest request;
        private final BrokerContext broker;
        private final List<Appended> appended;
        private final Map<Long, Map<TopicPartition, Errors>> errors;

        DelayedMarkers(KafkaRequest request, BrokerContext broker, List<Appended> appended,
                       Map<Long, Map<TopicPartition, Errors>> errors) {
            this.request = request;
            this.broker = broker;
            this.appended = appended;
            this.errors = errors;
        }

        private Errors outcome(Appended a) {
            return broker.replicaManager().acksAllOutcome(broker.brokerId(), a.tp(), a.requiredOffset());
        }

        @Override
        public boolean tryComplete() {
            return appended.stream().allMatch(a -> outcome(a) != null) && forceComplete();
        }

        @Override
        protected void onComplete() {
            for (Appended a : appended) {
                Errors outcome = outcome(a);
                errors.get(a.producerId()).put(a.tp(), outcome == null ? Errors.REQUEST_TIMED_OUT : outcome);
            }
            request.respond(new WriteTxnMarkersResponse(errors).data());
        }
    }
}
