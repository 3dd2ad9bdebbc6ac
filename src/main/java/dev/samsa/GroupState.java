package dev.samsa;

/** The state of a classic consumer group, named as Kafka names them ({@link #toString()} gives "PreparingRebalance"). */
public enum GroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
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
