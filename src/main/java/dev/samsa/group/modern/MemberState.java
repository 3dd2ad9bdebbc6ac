package dev.samsa.group.modern;

/**
 * Where a member of a consumer group stands in its reconciliation towards the group's target assignment (Kafka's
 * {@code MemberState}); the {@code CurrentAssignmentBuilder} moves it.
 */
public enum MemberState {

    /** Its assignment is the target of its epoch; it waits for a newer target. */
    STABLE("stable"),

    /**
     * It must revoke partitions it owns before it may take new ones; it stays in its epoch until a heartbeat no longer
     * lists them as owned, or it is fenced when its rebalance timeout passes.
     */
    UNREVOKED_PARTITIONS("unrevoked_partitions"),

    /** It is in the target epoch, but some of its target partitions are still owned by other members. */
    UNRELEASED_PARTITIONS("unreleased_partitions");

    private final String kafkaName;

    MemberState(String kafkaName) {
        this.kafkaName = kafkaName;
    }

    @Override
    public String toString() {
        return kafkaName;
    }
}
