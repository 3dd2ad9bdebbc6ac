package dev.samsa.event;

/** A fault: a follower stopped fetching a partition. */
public record ReplicationPaused(String topic, int partition, int brokerId) implements ClusterEvent {

    @Override
    public String type() {
        return "FaultApplied";
    }

    @Override
    public String details() {
        return "pause replication of " + topic + "-" + partition + " to broker=" + brokerId;
    }
}
