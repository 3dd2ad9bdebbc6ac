package dev.samsa.event;

/**
 * A fenced broker that still believes it leads appended records no one will replicate; a run of them reads as its
 * latest.
 */
public record StaleLeaderAppend(String topic, int partition, int brokerId, int leaderEpoch,
        long logEndOffset) implements ClusterEvent {

    @Override
    public String details() {
        return topic + "-" + partition + " broker=" + brokerId + " epoch=" + leaderEpoch + " logEndOffset="
                + logEndOffset;
    }
}
