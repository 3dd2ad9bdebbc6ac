package dev.samsa.event;

/** A follower cut its log from {@code fromOffset} back to {@code toOffset}, losing {@code records} records. */
public record Truncated(String topic, int partition, int brokerId, long fromOffset, long toOffset, long records,
        int leaderEpoch, String reason) implements ClusterEvent {

    @Override
    public String details() {
        return topic + "-" + partition + " broker=" + brokerId + " from=" + fromOffset + " to=" + toOffset
                + " records=" + records + " leaderEpoch=" + leaderEpoch + " reason=" + reason;
    }
}
