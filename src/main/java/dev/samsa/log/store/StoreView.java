package dev.samsa.log.store;

import java.nio.ByteBuffer;

/**
 * Bytes of a {@link MappedStore} seen in place: read-only buffers over its mapping, in order, one per mapped chunk
 * they touch. Whoever holds a view may read it on any thread until it calls {@link #release()}; the store unmaps a
 * chunk only once the last view of it is released, so a segment deleted or closed meanwhile never leaves a reader on
 * unmapped memory (which would crash the JVM).
 */
public interface StoreView {

    /** The buffers, in order; each call returns fresh duplicates, positioned at their start. */
    ByteBuffer[] buffers();

    int length();

    /**
     * False once the store was truncated after this view was taken: the bytes in the mapping may have been zeroed or
     * overwritten since. A reader checks it after reading, before it lets what it read be used.
     */
    boolean intact();

    /** Lets the store unmap what this view holds. Releasing twice is harmless. */
    void release();
}
