package dev.samsa.event;

import java.util.List;

/**
 * A transactional id moved from one state to another at its coordinator (Kafka's names: "Ongoing", "PrepareCommit",
 * ...), with the producer id and epoch after the move and the partitions of the transaction.
 */
public record TxnStateChanged(String transactionalId, String previousState, String state, long producerId, short producerEpoch,
        List<String> partitions) implements ClusterEvent {

    public TxnStateChanged {
        partitions = List.copyOf(partitions);
    }

    @Override
    public String details() {
        return "transactionalId=" + transactionalId + " " + previousState + "->" + state + " producerId=" + producerId
                + " epoch=" + producerEpoch + " partitions=" + partitions;
    }
}
