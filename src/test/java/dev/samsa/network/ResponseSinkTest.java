package dev.samsa.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The writer's sink keeps the order of what it is given, whether it copies a piece or writes it in place. */
class ResponseSinkTest {

    @Test
    void shouldDeliverSmallCopiedPiecesAndLargeInPlaceOnesInOrder() throws Exception {
        byte[] small = pattern(100, 1);
        byte[] large = pattern(3 * ResponseSink.BUFFER_BYTES + 7, 2);
        byte[] overflow = pattern(ResponseSink.BUFFER_BYTES + 5, 3);
        ByteBuffer direct = ByteBuffer.allocateDirect(large.length).put(large).flip();
        int total = small.length + large.length + small.length + overflow.length;

        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.socket().getLocalPort());
                 SocketChannel accepted = server.accept()) {
                CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> readFully(client, total));
                ResponseSink sink = ResponseSink.of(accepted.socket());

                ByteBuffer[] pieces = {ByteBuffer.wrap(small), direct, ByteBuffer.wrap(small), ByteBuffer.wrap(overflow)};
                assertThat(sink.write(pieces)).isEqualTo(total);
                assertThat(pieces).as("every piece consumed before write returns")
                        .allSatisfy(p -> assertThat(p.hasRemaining()).isFalse());
                sink.flush();

                ByteArrayOutputStream expected = new ByteArrayOutputStream();
                expected.write(small);
                expected.write(large);
                expected.write(small);
                expected.write(overflow);
                assertThat(received.get()).isEqualTo(expected.toByteArray());
            }
        }
    }

    private static byte[] readFully(Socket socket, int length) {
        try {
            return socket.getInputStream().readNBytes(length);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] pattern(int length, int seed) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 31 + seed);
        }
        return bytes;
    }
}
