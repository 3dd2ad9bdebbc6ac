package dev.samsa.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.samsa.log.store.MappedStore;
import dev.samsa.log.store.MappedStoreFactory;

/**
 * The aborted transactions whose ABORT marker is in one segment ({@code .txnindex}), in marker order, so that a
 * read_committed fetch can name the aborted transactions overlapping what it returns without scanning the log.
 *
 * <p>Layout, as Kafka's {@code TransactionIndex}: {@value #ENTRY_SIZE}-byte entries of version (short, 0), producer
 * id, first offset, last offset and last stable offset (longs), big-endian. As Kafka, the file exists only once a
 * segment has an aborted transaction, so a replica keeps no more files open than before transactions.
 *
 * <p>The list in memory is the working copy; the file is rewritten from the log when the segment is recovered and
 * when the log is truncated (Kafka cuts the entries at or above the truncation offset; a rebuild leaves the same).
 * Not thread-safe: the cluster loop owns the log.
 */
final class TransactionIndex {

    static final int ENTRY_SIZE = 34;
    private static final short VERSION = 0;

    private final Path file;
    private final MappedStoreFactory stores;
    private final List<AbortedTxn> entries = new ArrayList<>();
    private MappedStore store;

    TransactionIndex(Path file, MappedStoreFactory stores) {
        this.file = file;
        this.stores = stores;
    }

    void append(AbortedTxn txn) throws IOException {
        if (store == null) {
            store = stores.open(file);
        }
        ByteBuffer entry = ByteBuffer.allocate(ENTRY_SIZE).putShort(VERSION).putLong(txn.producerId())
                .putLong(txn.firstOffset()).putLong(txn.lastOffset()).putLong(txn.lastStableOffset()).flip();
        store.write((long) entries.size() * ENTRY_SIZE, entry);
        entries.add(txn);
    }

    /**
     * Kafka's collectAbortedTxns: the entries overlapping {@code [fetchOffset, upperBoundOffset)}; complete once an
     * entry's last stable offset reaches the upper bound, since no later segment can hold an earlier transaction.
     */
    boolean collect(long fetchOffset, long upperBoundOffset, List<AbortedTxn> out) {
        for (AbortedTxn txn : entries) {
            if (txn.lastOffset() >= fetchOffset && txn.firstOffset() < upperBoundOffset) {
                out.add(txn);
            }
            if (txn.lastStableOffset() >= upperBoundOffset) {
                return true;
            }
        }
        return false;
    }

    /** Forgets every entry and deletes the file, before recovery rebuilds it from the log. */
    void reset() throws IOException {
        entries.clear();
        close();
        Files.deleteIfExists(file);
    }

    List<AbortedTxn> entries() {
        return List.copyOf(entries);
    }

    void flush() throws IOException {
        if (store != null) {
            store.flush();
        }
    }

    void close() throws IOException {
        if (store != null) {
            store.close();
            store = null;
        }
    }

    void deleteFile() throws IOException {
        close();
        Files.deleteIfExists(file);
    }
}
