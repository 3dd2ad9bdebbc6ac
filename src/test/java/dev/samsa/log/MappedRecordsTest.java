package dev.samsa.log;

import static dev.samsa.log.LogTestSupport.NOW;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.log.store.MappedStoreFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The fetch path's records seen in place: the same bytes as a copy, alive past their segment, and never sent torn. */
class MappedRecordsTest {

    /** 100 batches of 10 records of 3000 bytes: 3 MiB, so reads of 1 MiB cross the mapping's 1 MiB chunks. */
    private static final int BATCHES = 100;

    @TempDir
    Path tmp;
    private PartitionLog log;

    @AfterEach
    void close() {
        if (log != null) {
            log.close();
        }
    }

    static java.util.stream.Stream<MappedStoreFactory> factories() {
        return LogTestSupport.factories();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("factories")
    void shouldHoldTheSameBytesAndBatchesAsACopyAcrossChunks(MappedStoreFactory stores) throws IOException {
        fill(stores);
        long offset = 0;
        int reads = 0;
        while (offset < log.logEndOffset()) {
            MemoryRecords copy = log.read(offset, 1 << 20, Long.MAX_VALUE, true).records();
            try (MappedRecords mapped = (MappedRecords) log.readMapped(offset, 1 << 20, Long.MAX_VALUE, true)) {
                assertThat(sent(mapped)).isEqualTo(bytes(copy.buffer()));
                assertThat(mapped.batches()).hasSameSizeAs(copy.batches())
                        .allSatisfy(RecordBatch::ensureValid);
                assertThat(mapped.batches().stream().map(RecordBatch::lastOffset).toList())
                        .isEqualTo(java.util.stream.StreamSupport.stream(copy.batches().spliterator(), false)
                                .map(RecordBatch::lastOffset).toList());
                assertThat(mapped.lastBatch().orElseThrow().lastOffset()).as("found without walking the batches")
                        .isEqualTo(copy.lastBatch().orElseThrow().lastOffset());
                offset = mapped.batches().get(mapped.batches().size() - 1).lastOffset() + 1;
            }
            reads++;
        }
        assertThat(reads).as("several 1 MiB reads, so some start or end inside a chunk").isGreaterThan(2);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("factories")
    void shouldLetAFollowerAppendTheLeadersBytesAsTheyAre(MappedStoreFactory stores) throws IOException {
        fill(stores);
        try (PartitionLog follower = PartitionLog.open(tmp.resolve("follower-0"), LogConfigs.defaults(), stores, NOW)) {
            while (follower.logEndOffset() < log.logEndOffset()) {
                try (MappedRecords mapped = (MappedRecords) log.readMapped(follower.logEndOffset(), 1 << 20,
                        Long.MAX_VALUE, true)) {
                    follower.appendAsFollower(mapped, NOW);
                }
            }
            assertThat(bytes(follower.read(0, Integer.MAX_VALUE, Long.MAX_VALUE, true).records().buffer()))
                    .isEqualTo(bytes(log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE, true).records().buffer()));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("factories")
    void shouldStayReadableWhenTheirSegmentIsDeletedWhileHeld(MappedStoreFactory stores) throws IOException {
        fill(stores);
        byte[] expected = bytes(log.read(0, 1 << 20, Long.MAX_VALUE, true).records().buffer());
        MappedRecords held = (MappedRecords) log.readMapped(0, 1 << 20, Long.MAX_VALUE, true);

        log.delete();
        log = null;
        stores.awaitReleased();

        assertThat(sent(held)).as("a retention or compaction that deletes the segment does not unmap it under a send")
                .isEqualTo(expected);
        held.close();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("factories")
    void shouldNotSendTheirLastByteWhenTheSegmentIsTruncatedMidSend(MappedStoreFactory stores) throws IOException {
        fill(stores);
        try (MappedRecords held = (MappedRecords) log.readMapped(0, 1 << 20, Long.MAX_VALUE, true)) {
            Channel channel = new Channel(() -> log.truncateTo(5)); // a leader change on the cluster loop, mid-send

            assertThatThrownBy(() -> held.writeTo(channel, 0, held.sizeInBytes()))
                    .isInstanceOf(IOException.class).hasMessageContaining("truncated");
            assertThat(channel.out.size()).as("the client never gets the whole response").isLessThan(held.sizeInBytes());
        }
    }

    private void fill(MappedStoreFactory stores) throws IOException {
        log = PartitionLog.open(tmp.resolve("orders-0"), LogConfigs.defaults(), stores, NOW);
        for (int b = 0; b < BATCHES; b++) {
            SimpleRecord[] records = new SimpleRecord[10];
            for (int r = 0; r < records.length; r++) {
                byte[] value = new byte[3000];
                Arrays.fill(value, (byte) (b * 10 + r));
                records[r] = new SimpleRecord(NOW, null, value);
            }
            log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, records), 0, NOW);
        }
    }

    private static byte[] sent(Records records) throws IOException {
        Channel channel = new Channel(() -> { });
        int written = 0;
        while (written < records.sizeInBytes()) {
            written += ((MappedRecords) records).writeTo(channel, written, records.sizeInBytes() - written);
        }
        return channel.out.toByteArray();
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    /** A socket stand-in that keeps what it is given and runs {@code onFirstWrite} once, after the first write. */
    private static final class Channel implements TransferableChannel {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private Runnable onFirstWrite;

        Channel(Runnable onFirstWrite) {
            this.onFirstWrite = onFirstWrite;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                n += write(srcs[i]);
            }
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs) {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            byte[] bytes = new byte[n];
            src.get(bytes);
            out.write(bytes, 0, n);
            Runnable run = onFirstWrite;
            onFirstWrite = null;
            if (run != null) {
                run.run();
            }
            return n;
        }

        @Override
        public boolean hasPendingWrites() {
            return false;
        }

        @Override
        public long transferFrom(FileChannel fileChannel, long position, long count) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }
}
