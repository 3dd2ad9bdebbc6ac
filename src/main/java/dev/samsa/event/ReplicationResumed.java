package dev.samsa.event;

/** A fault healed: a paused follower fetches again. */
public record ReplicationResumed(String topic, int partition, int brokerId) implements ClusterEvent {

    @Override
    public String type() {
        return "FaultHealed";
    }

    @Override
    public String details() {
        return "resume replication of " + topic + "-" + partition + " to broker=" + brokerId;
    }
}
