package dev.samsa.handler;

import dev.samsa.cluster.Topic;
import dev.samsa.group.CommittedOffset;
import dev.samsa.wire.KafkaRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * TxnOffsetCommit v0-6: a transactional producer commits a group's offsets in its transaction (the consumer's
 * position, sent by {@code sendOffsetsToTransaction} after AddOffsetsToTxn). The offsets are written to the group's
 * {@code __consumer_offsets} partition in a transactional batch of the producer and stay pending until the
 * transaction's marker: COMMIT makes them the group's committed offsets, ABORT drops them. v3+ carry the member id,
 * generation and group instance id, checked as for OffsetCommit (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION,
 * FENCED_INSTANCE_ID), except that a transactional commit without them is accepted from a group with members and
 * during a rebalance, as Kafka does; a generation given for a group that does not exist is ILLEGAL_GENERATION, none
 * makes it a simple group. An unknown topic or partition gets UNKNOWN_TOPIC_OR_PARTITION, metadata over 4096 bytes
 * OFFSET_METADATA_TOO_LARGE; v0-1 read COORDINATOR_LOAD_IN_PROGRESS as COORDINATOR_NOT_AVAILABLE, as Kafka answers
 * clients older than 2.0. Before the write the transaction coordinator verifies that the group's partition is in the
 * transaction, or from v5 (transaction version 2) adds it (see {@link #verifyTransaction}). Answered once the records
 * are replicated. v6 (KIP-1319) names topics by id instead of name, asked and answered (an id no topic has answers
 * UNKNOWN_TOPIC_ID, before any other check), and carries a consumer group member's epoch, whose errors the producer
 * then hears as they are: STALE_MEMBER_EPOCH, GROUP_ID_NOT_FOUND (see {@code OffsetStore.commitTransactional}).
 */
final class TxnOffsetCommitHandler implements ApiHandler {

    private static final int MAX_METADATA = 4096;
    /** The first TxnOffsetCommit version that only a transaction version 2 client sends. */
    private static final short TRANSACTION_V2_VERSION = 5;
    /** The first TxnOffsetCommit version that names topics by id (KIP-1319). */
    private static final short TOPIC_ID_VERSION = 6;

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.TXN_OFFSET_COMMIT;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        TxnOffsetCommitRequestData data = request.data();
        broker.requireTransactionalId(request, data.transactionalId());
        broker.requireGroup(request, AclOperation.READ, data.groupId());
        long now = broker.cluster().nowMs();
        TxnOffsetCommitResponseData response = new TxnOffsetCommitResponseData();
        Map<TopicPartition, CommittedOffset> commits = new LinkedHashMap<>();
        // The partitions the coordinator answers for: an error of the whole commit goes to each of them.
        List<TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition> coordinated = new ArrayList<>();
        boolean byId = request.version() >= TOPIC_ID_VERSION;
        for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic t : data.topics()) {
            Topic known = byId ? broker.cluster().metadata().topic(t.topicId()) : null;
            String name = !byId ? t.name() : known == null ? "" : known.name();
            TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic rt =
                    new TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic().setName(name);
            if (byId) {
                rt.setTopicId(t.topicId());
            }
            response.topics().add(rt);
            for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition p : t.partitions()) {
                TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition rp =
                        new TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition().setPartitionIndex(p.partitionIndex());
                rt.partitions().add(rp);
                TopicPartition tp = new TopicPartition(name, p.partitionIndex());
                if (byId && known == null) {
                    rp.setErrorCode(Errors.UNKNOWN_TOPIC_ID.code());
                    continue;
                }
                if (!broker.authorized(request, AclOperation.READ, ResourceType.TOPIC, name)) {
                    rp.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                    continue;
                }
                if (broker.cluster().metadata().partition(tp) == null) {
                    rp.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                coordinated.add(rp);
                if (p.committedMetadata() != null && p.committedMetadata().length() > MAX_METADATA) {
                    rp.setErrorCode(Errors.OFFSET_METADATA_TOO_LARGE.code());
                } else {
                    commits.put(tp, new CommittedOffset(p.committedOffset(), p.committedLeaderEpoch(), p.committedMetadata(), now));
                }
            }
        }
        if (coordinated.isEmpty()) {
            request.respond(response);
            return;
        }
        Consumer<Errors> answer = error -> {
            if (error != Errors.NONE) {
                Errors answered = error == Errors.COORDINATOR_LOAD_IN_PROGRESS && request.version() < 2
                        ? Errors.COORDINATOR_NOT_AVAILABLE : error;
                coordinated.forEach(rp -> rp.setErrorCode(answered.code()));
            }
            request.respond(response);
        };
        verifyTransaction(request, broker, verified -> {
            if (verified != Errors.NONE) {
                answer.accept(verified);
                return;
            }
            broker.groups().offsets().commitTransactional(broker.brokerId(), request.version(), data.producerId(), data.producerEpoch(),
                    data.groupId(), data.memberId(), data.groupInstanceId(), data.generationIdOrMemberEpoch(), commits, answer);
        });
    }

    /**
     * The one place where, before the offsets are written, the transaction coordinator is asked about the group's
     * {@code __consumer_offsets} partition, as Kafka's coordinator does ({@code maybeStartTransactionVerification}).
     * Transaction version 1 with transaction.partition.verification.enable (KIP-890 part 1, default true): it VERIFIES
     * that AddOffsetsToTxn added the partition to the producer's open transaction; not added answers INVALID_TXN_STATE
     * (TRANSACTION_ABORTABLE from v4), a fenced epoch INVALID_PRODUCER_EPOCH, as Kafka's AddPartitionsToTxnManager maps
     * them. Transaction version 2 (TxnOffsetCommit v5+, KIP-890 part 2) instead ADDS the partition here, a
     * replicated write, whatever the config says, since such a client sends no AddOffsetsToTxn; hence the callback.
     * Without the topic or a group id there is nothing to verify: the write answers the coordinator error.
     */
    private static void verifyTransaction(KafkaRequest request, BrokerContext broker, Consumer<Errors> proceed) {
        TxnOffsetCommitRequestData data = request.data();
        TopicPartition offsets = data.groupId().isEmpty() ? null : broker.groups().offsetsPartition(data.groupId());
        boolean adds = request.version() >= TRANSACTION_V2_VERSION;
        if (offsets == null || (!adds && !broker.configs().getBoolean("transaction.partition.verification.enable"))) {
            proceed.accept(Errors.NONE);
            return;
        }
        Consumer<Map<TopicPartition, Errors>> then = verified -> proceed.accept(switch (verified.getOrDefault(offsets, Errors.NONE)) {
            case PRODUCER_FENCED -> Errors.INVALID_PRODUCER_EPOCH;
            case TRANSACTION_ABORTABLE -> request.version() >= 4 ? Errors.TRANSACTION_ABORTABLE : Errors.INVALID_TXN_STATE;
            default -> verified.getOrDefault(offsets, Errors.NONE);
        });
        if (adds) {
            broker.transactions().addPartitionsImplicitly(data.transactionalId(), data.producerId(), data.producerEpoch(),
                    Set.of(offsets), then);
        } else {
            broker.transactions().verifyPartitions(data.transactionalId(), data.producerId(), data.producerEpoch(),
                    Set.of(offsets), then);
        }
    }
}
