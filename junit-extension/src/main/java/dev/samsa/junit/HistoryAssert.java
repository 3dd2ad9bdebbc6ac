package dev.samsa.junit;

import dev.samsa.History;
import org.assertj.core.api.AbstractAssert;

/**
 * Assertions on the cluster's history check ({@link dev.samsa.KafkaCluster#history()}), read once; a failure message
 * lists the records concerned and the fault events around them.
 */
public final class HistoryAssert extends AbstractAssert<HistoryAssert, History> {

    HistoryAssert(History history) {
        super(history, HistoryAssert.class);
    }

    /** Every record the brokers acknowledged is still in its partition's log. */
    public HistoryAssert hasNoLostAcknowledgedRecords() {
        isNotNull();
        if (!actual.lost().isEmpty()) {
            failWithMessage("%s", "Expected no acknowledged record to be lost, but " + actual.lostRecords()
                    + " were:\n" + actual);
        }
        return this;
    }

    /** The consumer side of one group: records delivered twice, offsets committed before delivery. */
    public GroupHistoryAssert group(String groupId) {
        isNotNull();
        GroupHistoryAssert group = new GroupHistoryAssert(actual.group(groupId));
        return descriptionText().isEmpty() ? group : group.as(descriptionText());
    }

    /** No idempotent producer's batch is in a log twice. */
    public HistoryAssert hasNoDuplicatedRecords() {
        isNotNull();
        if (!actual.duplicates().isEmpty()) {
            failWithMessage("%s", "Expected no batch written twice by one idempotent producer, but:\n" + actual);
        }
        return this;
    }

    /** No idempotent producer's acknowledged batches skip or go back in sequence. */
    public HistoryAssert hasNoOutOfOrderSequences() {
        isNotNull();
        if (!actual.outOfOrder().isEmpty()) {
            failWithMessage("%s", "Expected every producer's acknowledged sequences in order, but:\n" + actual);
        }
        return this;
    }
}
