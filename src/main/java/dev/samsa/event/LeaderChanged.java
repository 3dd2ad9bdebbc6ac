package dev.samsa.event;

import java.util.List;

/**
 * A partition has a new leader (-1: none); {@code unclean} when it came from outside the ISR, which may lose records.
 */
public record LeaderChanged(String topic, int partition, int previousLeader, int leader, int leaderEpoch,
        List<Integer> isr, String reason, boolean unclean) implements ClusterEvent {

    public LeaderChanged {
        isr = List.copyOf(isr);
    }

    @Override
    public String type() {
        return unclean ? "UncleanLeaderElected" : "LeaderChanged";
    }

    @Override
    public String details() {
        return topic + "-" + partition + " leader=" + previousLeader + "->" + leader + " epoch=" + leaderEpoch
                + " isr=" + isr + " reason=" + reason;
    }
}
