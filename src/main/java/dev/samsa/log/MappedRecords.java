package dev.samsa.log;

import dev.samsa.log.store.StoreView;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.record.internal.AbstractRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.utils.internals.AbstractIterator;

/**
 * Whole batches of one segment seen in place, as Kafka's {@code FileRecords}: a fetch response sends them to the
 * socket straight from the mapping ({@link #writeTo}), and a follower appends them to its own log, neither through a
 * heap copy.
 *
 * <p>They hold a view of the segment's mapping, which stays mapped until {@link #close()}: whoever ends up with them
 * closes them once done (the connection's writer after sending, a reader that drops them). Unclosed records only keep
 * a deleted segment's mapping until the JVM exits; they never let a reader touch unmapped memory.
 *
 * <p>If the segment is truncated while they are being sent (a leader change on the other thread), the last byte is
 * not sent: {@link #writeTo} fails instead, so the client never gets a whole response with bytes that changed under
 * it, and sees a closed connection, which it retries.
 */
public final class MappedRecords extends AbstractRecords implements AutoCloseable {

    private final StoreView view;
    private final int lastBatchPosition;
    private List<MutableRecordBatch> batches;

    /** {@code lastBatchPosition}: where in {@code view} the last batch starts, which the segment's walk found. */
    MappedRecords(StoreView view, int lastBatchPosition) {
        this.view = view;
        this.lastBatchPosition = lastBatchPosition;
    }

    @Override
    public int sizeInBytes() {
        return view.length();
    }

    /** The bytes, in order, as read-only buffers over the mapping. */
    ByteBuffer[] buffers() {
        return view.buffers();
    }

    @Override
    public List<MutableRecordBatch> batches() {
        if (batches == null) {
            batches = Collections.unmodifiableList(readBatches());
        }
        return batches;
    }

    /** Read where the segment's walk found it: what a fetch needs to know of its batches (where the next starts). */
    @Override
    public Optional<RecordBatch> lastBatch() {
        return Optional.of(batchAt(view.buffers(), lastBatchPosition));
    }

    @Override
    public AbstractIterator<MutableRecordBatch> batchIterator() {
        Iterator<MutableRecordBatch> it = batches().iterator();
        return new AbstractIterator<>() {
            @Override
            protected MutableRecordBatch makeNext() {
                return it.hasNext() ? it.next() : allDone();
            }
        };
    }

    /** Not needed on Samsa's paths, which send or append these records whole. */
    @Override
    public Records slice(int position, int size) {
        throw new UnsupportedOperationException("MappedRecords are sent or appended whole");
    }

    /**
     * Writes {@code length} bytes from {@code position} without copying them, except the very last byte of these
     * records: that one is read first and written only after checking that the segment was not truncated meanwhile.
     */
    @Override
    public int writeTo(TransferableChannel channel, int position, int length) throws IOException {
        ByteBuffer[] buffers = range(position, length);
        boolean reachesEnd = position + length == sizeInBytes() && length > 0;
        if (!reachesEnd) {
            return (int) channel.write(buffers);
        }
        ByteBuffer lastByte = ByteBuffer.allocate(1);
        ByteBuffer tail = buffers[buffers.length - 1];
        lastByte.put(0, tail.get(tail.limit() - 1));
        tail.limit(tail.limit() - 1);
        long written = channel.write(buffers);
        if (written < length - 1) {
            return (int) written;
        }
        if (!view.intact()) {
            throw new IOException("The segment was truncated while " + sizeInBytes() + " bytes of it were being sent");
        }
        return (int) (written + channel.write(lastByte));
    }

    /** Lets the segment's mapping go. Closing twice is harmless. */
    @Override
    public void close() {
        view.release();
    }

    @Override
    public String toString() {
        return "MappedRecords(" + sizeInBytes() + " bytes)";
    }

    /** The buffers narrowed to {@code length} bytes from {@code position}. */
    private ByteBuffer[] range(int position, int length) {
        List<ByteBuffer> out = new ArrayList<>();
        int skip = position;
        int left = length;
        for (ByteBuffer b : view.buffers()) {
            if (left == 0) {
                break;
            }
            if (skip >= b.remaining()) {
                skip -= b.remaining();
                continue;
            }
            b.position(b.position() + skip);
            skip = 0;
            b.limit(b.position() + Math.min(left, b.remaining()));
            left -= b.remaining();
            out.add(b);
        }
        return out.toArray(new ByteBuffer[0]);
    }

    /** Each batch over the mapping where it lies in one chunk; a batch split between two chunks is copied whole. */
    private List<MutableRecordBatch> readBatches() {
        List<MutableRecordBatch> out = new ArrayList<>();
        ByteBuffer[] buffers = view.buffers();
        int position = 0;
        while (position < sizeInBytes()) {
            MutableRecordBatch batch = batchAt(buffers, position);
            out.add(batch);
            position += batch.sizeInBytes();
        }
        return out;
    }

    private static MutableRecordBatch batchAt(ByteBuffer[] buffers, int position) {
        int size = Records.LOG_OVERHEAD + bytesAt(buffers, position + Records.SIZE_OFFSET, 4).getInt();
        return MemoryRecords.readableRecords(bytesAt(buffers, position, size)).batches().iterator().next();
    }

    /** {@code length} bytes at {@code position}: a slice of one buffer if they are in one, else a copy. */
    private static ByteBuffer bytesAt(ByteBuffer[] buffers, int position, int length) {
        int start = position;
        int i = 0;
        while (start >= buffers[i].remaining()) {
            start -= buffers[i].remaining();
            i++;
        }
        if (start + length <= buffers[i].remaining()) {
            return buffers[i].slice(buffers[i].position() + start, length);
        }
        ByteBuffer copy = ByteBuffer.allocate(length);
        ByteBuffer from = buffers[i].duplicate().position(buffers[i].position() + start);
        while (true) {
            from.limit(from.position() + Math.min(from.remaining(), copy.remaining()));
            copy.put(from);
            if (!copy.hasRemaining()) {
                return copy.flip();
            }
            from = buffers[++i].duplicate();
        }
    }
}
