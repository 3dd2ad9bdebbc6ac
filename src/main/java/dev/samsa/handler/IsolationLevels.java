package dev.samsa.handler;

import org.apache.kafka.common.errors.UnknownServerException;

/** The isolation level byte of Fetch and ListOffsets, checked as Kafka meets it. */
final class IsolationLevels {

    private IsolationLevels() {
    }

    /**
     * kafka-clients' {@code IsolationLevel.forId} throws a plain IllegalArgumentException for anything but 0 and 1,
     * which Kafka answers with UNKNOWN_SERVER_ERROR: the same answer here, as the client's error rather than ours.
     *
     * @throws UnknownServerException for a level other than READ_UNCOMMITTED (0) or READ_COMMITTED (1)
     */
    static void throwIfUnknown(byte isolationLevel) {
        if (isolationLevel != 0 && isolationLevel != 1) {
            throw new UnknownServerException("Unknown isolation level " + isolationLevel);
        }
    }
}
