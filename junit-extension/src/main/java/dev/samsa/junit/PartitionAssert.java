package dev.samsa.junit;

import dev.samsa.PartitionView;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on one partition's replication state, read once when {@link KafkaClusterAssert#partition} was called.
 * Every failure message shows the whole state: leader, epoch, replicas, ISR and high watermark.
 */
public final class PartitionAssert extends AbstractAssert<PartitionAssert, PartitionAssert.State> {

    /** What the partition looked like; {@code leader} is -1 while it is offline. */
    record State(String topicPartition, int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr,
                 long highWatermark) {

        static State of(String topic, int partition, PartitionView view) {
            return new State(topic + "-" + partition, view.leader(), view.leaderEpoch(), List.copyOf(view.replicas()),
                    List.copyOf(view.isr()), view.highWatermark());
        }

        @Override
        public String toString() {
            return topicPartition + " leader=" + leader + " leaderEpoch=" + leaderEpoch + " replicas=" + replicas
                    + " isr=" + isr + " highWatermark=" + highWatermark;
        }
    }

    PartitionAssert(State state) {
        super(state, PartitionAssert.class);
    }

    /** The leader is this broker (ids start at 1). */
    public PartitionAssert hasLeader(int brokerId) {
        if (actual.leader() != brokerId) {
            fail("to have leader " + brokerId);
        }
        return this;
    }

    /** No replica leads: the partition is offline. */
    public PartitionAssert isOffline() {
        if (actual.leader() != -1) {
            fail("to be offline (no leader)");
        }
        return this;
    }

    /** The in-sync replicas are exactly these brokers, in any order. */
    public PartitionAssert hasIsr(Integer... brokerIds) {
        Set<Integer> expected = new TreeSet<>(Arrays.asList(brokerIds));
        if (!new TreeSet<>(actual.isr()).equals(expected) || actual.isr().size() != brokerIds.length) {
            fail("to have ISR " + expected);
        }
        return this;
    }

    public PartitionAssert hasIsrSize(int expected) {
        if (actual.isr().size() != expected) {
            fail("to have " + expected + " in-sync replica(s)");
        }
        return this;
    }

    public PartitionAssert hasHighWatermark(long expected) {
        if (actual.highWatermark() != expected) {
            fail("to have high watermark " + expected);
        }
        return this;
    }

    private void fail(String expectation) {
        failWithMessage("%s", "Expected partition " + actual.topicPartition() + " " + expectation + ".\nActual: " + actual);
    }
}
