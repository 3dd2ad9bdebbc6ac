package dev.samsa;

import dev.samsa.event.ClusterEvent;
import dev.samsa.event.GroupStateChanged;
import dev.samsa.event.HighWatermark;
import dev.samsa.event.IsrShrunk;
import dev.samsa.event.LeaderChanged;
import dev.samsa.event.RecordsAcknowledged;
import java.util.function.Predicate;

/**
 * Ready-made conditions for {@code cluster.events().on(...)}, so that a trigger reads as one line:
 * {@code cluster.events().on(When.groupEntered("billing", GroupState.COMPLETING_REBALANCE), coordinator::crash)}.
 */
public final class When {

    private When() {
    }

    /** Group {@code groupId} moved into {@code state}. */
    public static Predicate<ClusterEvent> groupEntered(String groupId, GroupState state) {
        return e -> e instanceof GroupStateChanged g && g.groupId().equals(groupId)
                && g.state().equals(state.toString());
    }

    /** {@code topic}-{@code partition} got a new leader (clean or unclean, or none). */
    public static Predicate<ClusterEvent> leaderChanged(String topic, int partition) {
        return e -> e instanceof LeaderChanged l && l.topic().equals(topic) && l.partition() == partition;
    }

    /** A replica of {@code topic}-{@code partition} left its ISR. */
    public static Predicate<ClusterEvent> isrShrunk(String topic, int partition) {
        return e -> e instanceof IsrShrunk i && i.topic().equals(topic) && i.partition() == partition;
    }

    /**
     * The high watermark of {@code topic}-{@code partition} reached {@code offset} or beyond: every record below
     * {@code offset} is committed.
     */
    public static Predicate<ClusterEvent> highWatermarkReached(String topic, int partition, long offset) {
        return e -> e instanceof HighWatermark hw && hw.topic().equals(topic) && hw.partition() == partition
                && hw.highWatermark() >= offset;
    }

    /**
     * Leaders of {@code topic}-{@code partition} acknowledged {@code records} records to producers, or more, counted
     * from the cluster's start (acks=1 when appended, acks=all once replicated; a failed produce does not count). The
     * action runs before the leader takes its next request.
     */
    public static Predicate<ClusterEvent> acknowledged(String topic, int partition, long records) {
        return e -> e instanceof RecordsAcknowledged a && a.topic().equals(topic) && a.partition() == partition
                && a.acknowledgedRecords() >= records;
    }
}
