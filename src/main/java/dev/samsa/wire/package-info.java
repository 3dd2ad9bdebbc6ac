/**
 * Frames to requests and responses to frames ({@link dev.samsa.wire.RequestCodec}), with kafka-clients' generated
 * message classes doing every byte, and {@link dev.samsa.wire.KafkaRequest}: one decoded request and the one way it is
 * answered (a response, no response, or a closed connection).
 *
 * <p>What it may call: nothing internal. Only this package and {@code handler/} touch kafka-clients' request and
 * response messages.
 */
package dev.samsa.wire;
