package dev.samsa;

/**
 * The state of a consumer group, named as Kafka names them ({@link #toString()} gives "PreparingRebalance"): a classic
 * group is Empty, PreparingRebalance, CompletingRebalance, Stable or Dead; a consumer-protocol group (KIP-848) is Empty,
 * Assigning, Reconciling, Stable or Dead.
 */
public enum GroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    ASSIGNING("Assigning"),
    RECONCILING("Reconciling"),
    STABLE("Stable"),
    DEAD("Dead");

    private final String kafkaName;

    GroupState(String kafkaName) {
        this.kafkaName = kafkaName;
    }

    static GroupState fromKafkaName(String name) {
        for (GroupState s : values()) {
            if (s.kafkaName.equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("Unknown group state " + name);
    }

    @Override
    public String toString() {
        return kafkaName;
    }
}
