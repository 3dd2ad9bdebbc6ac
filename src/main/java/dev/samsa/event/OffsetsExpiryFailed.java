package dev.samsa.event;

/** The periodic offsets expiry of an offsets partition failed; the next one retries. */
public record OffsetsExpiryFailed(int partition, String error) implements ClusterEvent {

    @Override
    public String details() {
        return "__consumer_offsets-" + partition + ": " + error;
    }
}
