package dev.samsa.junit;

import dev.samsa.ConsumerGroup;
import dev.samsa.GroupPartition;
import dev.samsa.GroupState;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on a consumer group, from the snapshot {@link KafkaClusterAssert#group} took. Every failure message shows
 * the whole snapshot: state, generation, members with their assignments, committed offsets and lag.
 */
public final class GroupAssert extends AbstractAssert<GroupAssert, ConsumerGroup> {

    GroupAssert(ConsumerGroup group) {
        super(group, GroupAssert.class);
    }

    public GroupAssert isInState(GroupState expected) {
        if (actual.state() != expected) {
            fail("to be " + expected);
        }
        return this;
    }

    public GroupAssert isStable() {
        return isInState(GroupState.STABLE);
    }

    public GroupAssert hasMemberCount(int expected) {
        if (actual.members().size() != expected) {
            fail("to have " + expected + " member(s)");
        }
        return this;
    }

    /** The group committed {@code offset} (the next offset it will read) for the partition. */
    public GroupAssert hasCommittedOffset(String topic, int partition, long offset) {
        Long committed = actual.committed().get(new GroupPartition(topic, partition));
        if (committed == null || committed != offset) {
            fail("to have committed offset " + offset + " for " + topic + "-" + partition);
        }
        return this;
    }

    /** High watermark minus committed offset is {@code lag} for the partition. */
    public GroupAssert hasLag(String topic, int partition, long lag) {
        Long actualLag = actual.lag().get(new GroupPartition(topic, partition));
        if (actualLag == null || actualLag != lag) {
            fail("to have lag " + lag + " on " + topic + "-" + partition);
        }
        return this;
    }

    private void fail(String expectation) {
        failWithMessage("%s", "Expected group \"" + actual.groupId() + "\" " + expectation + ".\nActual: " + actual
                + " lag=" + actual.lag());
    }
}
