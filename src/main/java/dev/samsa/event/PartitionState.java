package dev.samsa.event;

import java.util.List;

/** A partition's leadership as it was created: its leader (-1: none), the leader epoch and the ISR. */
public record PartitionState(int partition, int leader, int leaderEpoch, List<Integer> isr) {

    public PartitionState {
        isr = List.copyOf(isr);
    }
}
