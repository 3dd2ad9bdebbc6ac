package dev.samsa.event;

/** The cluster started, with the seed of all its random choices. */
public record ClusterStarted(long seed, int brokers) implements ClusterEvent {

    @Override
    public String details() {
        return "seed=" + seed + " brokers=" + brokers;
    }
}
