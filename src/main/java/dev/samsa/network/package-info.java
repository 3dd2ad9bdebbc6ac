/**
 * Listeners and connections: one {@link dev.samsa.network.Listener} per broker and security protocol on 127.0.0.1,
 * and per client {@link dev.samsa.network.Connection} a reader thread that frames and decodes requests and a writer
 * thread that writes the answers strictly in request order, both from one JVM-wide pool
 * ({@link dev.samsa.network.ConnectionThreads}). TLS wraps the socket; a SASL listener runs
 * {@link dev.samsa.network.SaslAuthenticator} on the reader thread before any request reaches the broker. A bad frame
 * closes its connection only.
 *
 * <p>Decoded requests go to a {@link dev.samsa.network.RequestDispatcher}, which hands them to the cluster loop; this
 * package never touches cluster state. Wall time comes from the loop ({@link dev.samsa.network.WallClock}).
 *
 * <p>What it may call: {@code security/} and {@code wire/}.
 */
package dev.samsa.network;
