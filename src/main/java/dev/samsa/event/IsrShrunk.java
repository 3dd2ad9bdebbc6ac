package dev.samsa.event;

import java.util.List;

/** A replica left the ISR. */
public record IsrShrunk(String topic, int partition, List<Integer> isr, int removed,
        String reason) implements ClusterEvent {

    public IsrShrunk {
        isr = List.copyOf(isr);
    }

    @Override
    public String details() {
        return topic + "-" + partition + " isr=" + isr + " removed=" + removed + " reason=" + reason;
    }
}
