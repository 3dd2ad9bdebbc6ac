package dev.samsa.group.classic;

import org.apache.kafka.common.protocol.Errors;

/** The answer to one SyncGroup: the member's assignment of the current generation, or an error. */
public record SyncResult(Errors error, String protocolType, String protocolName, byte[] assignment) {

    static final byte[] EMPTY = new byte[0];

    public static SyncResult error(Errors error) {
        return new SyncResult(error, null, null, EMPTY);
    }
}
