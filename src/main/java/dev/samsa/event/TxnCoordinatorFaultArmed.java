package dev.samsa.event;

/** A fault: the coordinator of {@code transactionalId} is to be crashed or isolated ({@code action}) once it replicates {@code state}. */
public record TxnCoordinatorFaultArmed(String transactionalId, String state, String action) implements ClusterEvent {

    @Override
    public String type() {
        return "FaultApplied";
    }

    @Override
    public String details() {
        return action + " the coordinator of transactionalId=" + transactionalId + " when " + state + " is replicated";
    }
}
