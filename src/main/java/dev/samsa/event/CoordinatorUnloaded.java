package dev.samsa.event;

/** A broker stopped being the group coordinator of an offsets partition. */
public record CoordinatorUnloaded(int partition, int brokerId) implements ClusterEvent {

    @Override
    public String details() {
        return "__consumer_offsets-" + partition + " from broker " + brokerId;
    }
}
