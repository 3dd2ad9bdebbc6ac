package dev.samsa.log.cleaner;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * Key to the last offset it was written at in the dirty part of a log, as Kafka's {@code OffsetMap}. Kafka's
 * SkimpyOffsetMap stores MD5 digests in a fixed buffer (log.cleaner.dedupe.buffer.size) and may fill up, cleaning the
 * rest in a later pass; this one keeps the keys themselves and never fills, which a test-sized log affords.
 */
final class OffsetMap {

    private final Map<ByteBuffer, Long> offsets = new HashMap<>();
    private long latestOffset = -1L;

    void put(ByteBuffer key, long offset) {
        ByteBuffer copy = ByteBuffer.allocate(key.remaining());
        copy.put(key.duplicate()).flip();
        offsets.put(copy, offset);
    }

    /** The last offset of {@code key}, or -1 if the dirty part never wrote it. */
    long get(ByteBuffer key) {
        return offsets.getOrDefault(key, -1L);
    }

    void updateLatestOffset(long offset) {
        latestOffset = Math.max(latestOffset, offset);
    }

    /** The last offset the map covers; records past it are newer than any the map knows and stay. */
    long latestOffset() {
        return latestOffset;
    }

    int size() {
        return offsets.size();
    }
}
