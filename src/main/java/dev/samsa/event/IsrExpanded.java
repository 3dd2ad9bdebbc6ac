package dev.samsa.event;

import java.util.List;

/** A follower caught up and joined the ISR. */
public record IsrExpanded(String topic, int partition, List<Integer> isr, int added) implements ClusterEvent {

    public IsrExpanded {
        isr = List.copyOf(isr);
    }

    @Override
    public String details() {
        return topic + "-" + partition + " isr=" + isr + " added=" + added;
    }
}
