package dev.samsa.group;

/**
 * What the coordinator knows of any group, whatever its protocol (Kafka's {@code Group}): a classic group
 * (JoinGroup/SyncGroup) or a consumer group (KIP-848, ConsumerGroupHeartbeat). A group id names one group of one type.
 */
public interface Group {

    /** The protocol a group runs, as ListGroups and ConsumerGroupDescribe name it. */
    enum Type {
        CLASSIC("classic"), CONSUMER("consumer");

        private final String kafkaName;

        Type(String kafkaName) {
            this.kafkaName = kafkaName;
        }

        @Override
        public String toString() {
            return kafkaName;
        }
    }

    String groupId();

    Type type();

    /** Kafka's display name of the state ("PreparingRebalance", "Reconciling"). */
    String stateName();

    int numMembers();
}
