package dev.samsa.network;

/**
 * The largest frame a connection reads, as Kafka bounds them: {@code socket.request.max.bytes} for a request
 * (Kafka's NetworkReceive, given its maxSize by SocketServer), and {@code sasl.server.max.receive.size} for anything
 * a client sends on a SASL listener before its authentication completes, or while it re-authenticates (Kafka's
 * SaslServerAuthenticator reads those frames itself, with that bound alone; -1 there means no bound, as in
 * NetworkReceive). A size over the bound, or a negative one, closes the connection before a byte of the frame is read.
 *
 * <p>Within the bound a frame costs only the bytes that have arrived ({@link Connection}). Kafka takes the declared
 * size at once (from a memory pool only when queued.max.request.bytes is set), which a broker inside the user's test
 * JVM cannot afford on a client's word.
 *
 * @param maxRequestBytes socket.request.max.bytes, at least 1
 * @param maxSaslReceiveBytes sasl.server.max.receive.size, {@value #UNLIMITED} for none
 */
public record FrameLimits(int maxRequestBytes, int maxSaslReceiveBytes) {

    /** Kafka's NetworkReceive.UNLIMITED. */
    public static final int UNLIMITED = -1;

    /** Kafka's defaults: 104857600 and 524288. */
    public static final FrameLimits KAFKA_DEFAULTS = new FrameLimits(104_857_600, 524_288);

    public FrameLimits {
        if (maxRequestBytes < 1) {
            throw new IllegalArgumentException("socket.request.max.bytes must be at least 1, not " + maxRequestBytes);
        }
    }

    /**
     * Why a frame of {@code size} bytes is refused, in the words of Kafka's InvalidReceiveException, or null when it
     * may be read.
     *
     * @param authenticating the frame comes before the client's SASL authentication completes, or during a
     *        re-authentication
     */
    String refusal(int size, boolean authenticating) {
        int max = authenticating ? maxSaslReceiveBytes : maxRequestBytes;
        if (size < 0) {
            return "Invalid receive (size = " + size + ")";
        }
        if (max != UNLIMITED && size > max) {
            return "Invalid receive (size = " + size + " larger than " + max + ")";
        }
        return null;
    }
}
