package dev.samsa.network;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A broker's listener on 127.0.0.1: accepts connections and gives each its own reader and writer. */
public final class Listener implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Listener.class);

    private final ServerSocket server;
    private final String name;
    private final RequestDispatcher dispatcher;
    private final int maxRequestBytes;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong connectionIds = new AtomicLong();
    private volatile boolean closed;
    private volatile boolean refusing;
    private final Thread acceptor;

    /**
     * Binds {@code port} on 127.0.0.1 (0 for an ephemeral one).
     *
     * @throws IOException naming the port when it cannot be bound
     */
    public Listener(String name, int port, RequestDispatcher dispatcher, int maxRequestBytes) throws IOException {
        this.name = name;
        this.dispatcher = dispatcher;
        this.maxRequestBytes = maxRequestBytes;
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        try {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 128);
        } catch (IOException e) {
            socket.close();
            throw new IOException("Cannot listen on 127.0.0.1:" + port + " for " + name + ": " + e.getMessage(), e);
        }
        this.server = socket;
        this.acceptor = new Thread(this::acceptLoop, name + "-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                Socket socket = server.accept();
                if (refusing) {
                    socket.close();
                    continue;
                }
                socket.setTcpNoDelay(true);
                String connectionName = name + "-conn-" + connectionIds.incrementAndGet();
                Connection[] holder = new Connection[1];
                Connection connection = new Connection(socket, connectionName, dispatcher, maxRequestBytes,
                        () -> connections.remove(holder[0]));
                holder[0] = connection;
                connections.add(connection);
                if (closed) {
                    connection.close();
                    break;
                }
                connection.start();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("{} failed to accept a connection: {}", name, e.toString());
                }
            }
        }
    }

    /** While refusing, every new connection is closed at once and the current ones are dropped. */
    public void refuseClients(boolean refuse) {
        refusing = refuse;
        if (refuse) {
            closeConnections();
        }
    }

    /** Drops every client connection but keeps listening. */
    public void closeConnections() {
        connections.forEach(Connection::close);
    }

    /** Stops listening; when this returns the port is free again (a restart binds it at once). */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // nothing to do: the port is released either way
        }
        closeConnections();
        // The JDK releases a listening socket only once the thread blocked in accept() has left it.
        if (Thread.currentThread() != acceptor) {
            try {
                acceptor.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
