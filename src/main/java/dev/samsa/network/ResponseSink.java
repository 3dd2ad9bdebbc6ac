package dev.samsa.network;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocket;
import org.apache.kafka.common.network.TransferableChannel;

/**
 * Where a connection's writer puts its answers: the channel kafka-clients' {@code Send} writes itself to, as Kafka's
 * broker sends a response. Small pieces (headers, fields, whole small answers) are gathered in a buffer, so answers
 * that are ready together go out in one write. Large direct buffers, the record bytes of a fetch seen in a segment's
 * mapping, go to the socket's channel in place, in one gathering write after what is buffered: no copy on the way.
 * Over TLS (an {@link SSLSocket} must not be bypassed) everything goes through the buffer and the TLS stream, which
 * copies to encrypt anyway.
 *
 * <p>Every write call consumes all it is given before it returns: nothing is kept of the caller's buffers, so record
 * bytes may be released as soon as their {@code Send} completes.
 */
final class ResponseSink implements TransferableChannel {

    static final int BUFFER_BYTES = 32 * 1024;
    /** Direct buffers at least this large are written in place; smaller ones cost less copied than as a syscall. */
    static final int IN_PLACE_BYTES = 8 * 1024;

    private final SocketChannel channel;
    private final OutputStream stream;
    private final ByteBuffer buffer;
    private final List<ByteBuffer> inPlace = new ArrayList<>();

    private ResponseSink(SocketChannel channel, OutputStream stream, ByteBuffer buffer) {
        this.channel = channel;
        this.stream = stream;
        this.buffer = buffer;
    }

    static ResponseSink of(Socket socket) throws IOException {
        if (!(socket instanceof SSLSocket) && socket.getChannel() != null) {
            return new ResponseSink(socket.getChannel(), null, ConnectionThreads.writeBuffer(BUFFER_BYTES));
        }
        return new ResponseSink(null, socket.getOutputStream(), ByteBuffer.allocate(BUFFER_BYTES));
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        int length = src.remaining();
        add(src);
        writeInPlace();
        return length;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            total += srcs[i].remaining();
            add(srcs[i]);
        }
        writeInPlace();
        return total;
    }

    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
        return write(srcs, 0, srcs.length);
    }

    /** Sends what is buffered: before the writer waits, so that no answer sits in the buffer. */
    void flush() throws IOException {
        buffer.flip();
        if (channel != null) {
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
        } else {
            stream.write(buffer.array(), buffer.arrayOffset(), buffer.limit());
            stream.flush();
        }
        buffer.clear();
    }

    @Override
    public boolean hasPendingWrites() {
        return false;
    }

    @Override
    public long transferFrom(FileChannel fileChannel, long position, long count) throws IOException {
        return fileChannel.transferTo(position, count, this);
    }

    @Override
    public boolean isOpen() {
        return channel == null || channel.isOpen();
    }

    /** The connection closes the socket; this only lets go of the buffer's contents. */
    @Override
    public void close() {
        buffer.clear();
        inPlace.clear();
    }

    private void add(ByteBuffer src) throws IOException {
        if (channel != null && src.isDirect() && src.remaining() >= IN_PLACE_BYTES) {
            inPlace.add(src.duplicate());
            src.position(src.limit());
            return;
        }
        // Order: what is to go in place before this goes first.
        writeInPlace();
        while (src.hasRemaining()) {
            if (!buffer.hasRemaining()) {
                flush();
            }
            int n = Math.min(buffer.remaining(), src.remaining());
            buffer.put(buffer.position(), src, src.position(), n);
            buffer.position(buffer.position() + n);
            src.position(src.position() + n);
        }
    }

    /** The buffered bytes and the in-place buffers after them, in one gathering write. */
    private void writeInPlace() throws IOException {
        if (inPlace.isEmpty()) {
            return;
        }
        ByteBuffer[] all = new ByteBuffer[inPlace.size() + 1];
        all[0] = buffer.flip();
        for (int i = 0; i < inPlace.size(); i++) {
            all[i + 1] = inPlace.get(i);
        }
        while (all[all.length - 1].hasRemaining()) {
            channel.write(all);
        }
        buffer.clear();
        inPlace.clear();
    }
}
