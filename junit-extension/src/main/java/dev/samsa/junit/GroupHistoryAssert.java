package dev.samsa.junit;

import dev.samsa.GroupHistory;
import org.assertj.core.api.AbstractAssert;

/** Assertions on one consumer group's side of the history check; a failure lists the records concerned. */
public final class GroupHistoryAssert extends AbstractAssert<GroupHistoryAssert, GroupHistory> {

    GroupHistoryAssert(GroupHistory group) {
        super(group, GroupHistoryAssert.class);
    }

    /** No record was sent to the group's members more than once. */
    public GroupHistoryAssert hasNoRecordDeliveredTwice() {
        isNotNull();
        if (!actual.deliveredTwice().isEmpty()) {
            failWithMessage("%s", "Expected no record delivered twice to group " + actual.groupId() + ", but:\n" + actual);
        }
        return this;
    }

    /** The group committed no offset past records none of its members was sent. */
    public GroupHistoryAssert hasNoSkippedRecords() {
        isNotNull();
        if (!actual.skipped().isEmpty()) {
            failWithMessage("%s", "Expected no record of group " + actual.groupId()
                    + " committed before delivery, but:\n" + actual);
        }
        return this;
    }
}
