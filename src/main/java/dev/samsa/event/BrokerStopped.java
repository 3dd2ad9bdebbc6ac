package dev.samsa.event;

/** A broker went out: {@code how} is CRASH, POWER_LOSS, SHUTDOWN or FENCED. */
public record BrokerStopped(int brokerId, String how) implements ClusterEvent {

    @Override
    public String details() {
        return "broker=" + brokerId + " how=" + how;
    }
}
