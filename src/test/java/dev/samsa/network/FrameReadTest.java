package dev.samsa.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.InputStream;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link Connection#readFrame}: a frame's bytes, read into an array that grows only as they arrive. */
class FrameReadTest {

    @Test
    void aFrameLargerThanTheFirstChunkIsReadWholeAndExactlySized() throws Exception {
        byte[] sent = new byte[5 * Connection.FIRST_FRAME_CHUNK_BYTES + 123];
        new Random(26).nextBytes(sent);
        // One byte at a time at the chunk boundaries would be the worst case; a trickling stream covers it.
        byte[] read = Connection.readFrame(new DataInputStream(trickling(sent, 1000)), sent.length);
        assertThat(read).hasSize(sent.length).isEqualTo(sent);
    }

    @Test
    void aFrameOfZeroBytesIsEmpty() throws Exception {
        assertThat(Connection.readFrame(new DataInputStream(new ByteArrayInputStream(new byte[0])), 0)).isEmpty();
    }

    @Test
    void aStreamThatEndsInsideTheFrameGivesNull() throws Exception {
        byte[] sent = new byte[10];
        assertThat(Connection.readFrame(new DataInputStream(new ByteArrayInputStream(sent)), 1 << 30)).isNull();
    }

    @Test
    void aStreamThatEndsOneByteShortGivesNull() throws Exception {
        byte[] sent = new byte[2 * Connection.FIRST_FRAME_CHUNK_BYTES];
        assertThat(Connection.readFrame(new DataInputStream(new ByteArrayInputStream(sent)), sent.length + 1)).isNull();
    }

    /** A stream that hands out at most {@code step} bytes per read, as a socket does. */
    private static InputStream trickling(byte[] bytes, int step) {
        return new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, step));
            }
        };
    }
}
