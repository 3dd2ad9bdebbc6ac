package dev.samsa.network;

import dev.samsa.security.ListenerSecurity;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's listener on 127.0.0.1: accepts connections and serves each with a reader and a writer on pooled threads
 * ({@link ConnectionThreads}).
 *
 * <p>Its threads never die of a failure: when {@code accept()} fails (out of file descriptors, say) the acceptor backs
 * off, doubling up to {@value #MAX_BACKOFF_MS} ms, and logs once per {@value #LOG_INTERVAL_MS} ms of back-off with the
 * number of failures since; anything unexpected is handed to {@code onUnexpected}, which records it for the test.
 *
 * <p>The acceptor runs on a thread of a JVM-wide pool that keeps an idle thread for {@value #IDLE_ACCEPTOR_SECONDS} s:
 * a test that starts a cluster per method reuses the threads of the last one instead of creating three more. While
 * idle such a thread is named {@value #IDLE_ACCEPTOR_NAME}.
 */
public final class Listener implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Listener.class);

    private final ServerSocket server;
    private final String name;
    private final RequestDispatcher dispatcher;
    private final FrameLimits limits;
    static final long MAX_BACKOFF_MS = 1_000;
    static final long LOG_INTERVAL_MS = 10_000;

    private final Consumer<Throwable> onUnexpected;
    private final ListenerSecurity security;
    private final WallClock wall;
    /** The class loader of whoever started the cluster, which the acceptor and connection threads see. */
    private final ClassLoader starter;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong connectionIds = new AtomicLong();
    private volatile boolean closed;
    private volatile boolean refusing;
    static final String IDLE_ACCEPTOR_NAME = "samsa-idle-acceptor";
    static final long IDLE_ACCEPTOR_SECONDS = 10;
    private static final ExecutorService ACCEPTORS = new ThreadPoolExecutor(0, Integer.MAX_VALUE,
            IDLE_ACCEPTOR_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(), task -> {
                Thread thread = new Thread(task, IDLE_ACCEPTOR_NAME);
                thread.setDaemon(true);
                return thread;
            });
    /** The thread running {@link #acceptLoop}, once it runs. */
    private volatile Thread acceptor;
    /** Open until the accept loop has left {@code accept()} for good: only then has the JDK let go of the port. */
    private final CountDownLatch acceptorDone = new CountDownLatch(1);

    /**
     * Binds {@code port} on 127.0.0.1 (0 for an ephemeral one) for clients that speak {@code security}'s protocol;
     * {@code wall} is the cluster loop's wall clock, which SASL session lifetimes and token expiry go by.
     *
     * @throws IOException naming the port when it cannot be bound
     */
    public Listener(String name, int port, RequestDispatcher dispatcher, FrameLimits limits,
                    Consumer<Throwable> onUnexpected, ListenerSecurity security, WallClock wall) throws IOException {
        this.name = name;
        this.wall = wall;
        this.security = security;
        this.onUnexpected = onUnexpected;
        this.dispatcher = dispatcher;
        this.limits = limits;
        // A channel's sockets, so that fetched records can be written to them in place (ResponseSink).
        ServerSocketChannel socket = ServerSocketChannel.open();
        try {
            socket.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 128);
        } catch (IOException e) {
            socket.close();
            throw new IOException("Cannot listen on 127.0.0.1:" + port + " for " + name + ": " + e.getMessage(), e);
        }
        this.server = socket.socket();
        // The acceptor, and the connection threads it starts, see the class loader of whoever started the cluster,
        // as a thread of its own would.
        this.starter = Thread.currentThread().getContextClassLoader();
        try {
            ACCEPTORS.execute(this::acceptLoop);
        } catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    private void acceptLoop() {
        Thread self = Thread.currentThread();
        acceptor = self;
        self.setName(name + "-acceptor");
        self.setContextClassLoader(starter);
        try {
            acceptUntilClosed();
        } finally {
            // An idle thread holds on to no test's class loader.
            self.setContextClassLoader(Listener.class.getClassLoader());
            self.setName(IDLE_ACCEPTOR_NAME);
            acceptorDone.countDown();
        }
    }

    private void acceptUntilClosed() {
        long backoffMs = 0;
        long backoffSinceLogMs = 0;
        long failuresSinceLog = 0;
        while (!closed) {
            try {
                accept();
                backoffMs = 0;
            } catch (IOException | RuntimeException | Error e) {
                if (closed) {
                    break;
                }
                if (!(e instanceof IOException)) {
                    onUnexpected.accept(e);
                }
                // Wall time is measured in back-off slept, so that no clock is read here: log the first failure of a
                // run, then one line per interval with how many failed since.
                if (failuresSinceLog == 0 || backoffSinceLogMs >= LOG_INTERVAL_MS) {
                    if (e instanceof IOException) {
                        log.warn("{} failed to accept a connection ({} more failures since the last report): {}; "
                                + "backing off. \"Too many open files\" means the process is out of file descriptors: "
                                + "fewer connections or a higher ulimit -n", name, failuresSinceLog, e.toString());
                    } else {
                        log.error("{} failed unexpectedly while accepting a connection; it goes on. This is a Samsa bug: "
                                + "please report it with this stack trace", name, e);
                    }
                    backoffSinceLogMs = 0;
                    failuresSinceLog = 0;
                }
                failuresSinceLog++;
                backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(10, backoffMs * 2));
                backoffSinceLogMs += backoffMs;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(backoffMs));
            }
        }
    }

    private void accept() throws IOException {
        Socket socket = tls(server.getChannel().accept().socket());
        Connection[] holder = new Connection[1];
        try {
            if (refusing) {
                socket.close();
                return;
            }
            socket.setTcpNoDelay(true);
            String connectionName = name + "-conn-" + connectionIds.incrementAndGet();
            Connection connection = new Connection(socket, connectionName, dispatcher, limits,
                    () -> connections.remove(holder[0]), onUnexpected, security, wall);
            holder[0] = connection;
            connections.add(connection);
            if (closed) {
                connection.close();
                return;
            }
            connection.start(starter);
        } catch (IOException | RuntimeException | Error e) {
            // Out of threads or descriptors half-way: whatever was opened for this connection is closed again.
            if (holder[0] != null) {
                holder[0].close();
            } else {
                socket.close();
            }
            throw e;
        }
    }

    /**
     * TLS over the accepted socket, in server mode; the handshake itself runs on the connection's reader thread, so a
     * slow or hostile client never holds up the acceptor.
     */
    private Socket tls(Socket accepted) throws IOException {
        if (!security.usesTls()) {
            return accepted;
        }
        try {
            SSLSocket tls = (SSLSocket) security.sslContext().getSocketFactory().createSocket(accepted, null, true);
            tls.setUseClientMode(false);
            tls.setNeedClientAuth(security.clientAuthRequired());
            return tls;
        } catch (IOException | RuntimeException e) {
            accepted.close();
            throw e;
        }
    }

    /** While refusing, every new connection is closed at once and the current ones are dropped. */
    public void refuseClients(boolean refuse) {
        refusing = refuse;
        if (refuse) {
            closeConnections();
        }
    }

    /** A fault: every SASL session on this listener counts as expired; each connection's next request closes it. */
    public void expireSaslSessions() {
        connections.forEach(Connection::expireSaslSession);
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
                acceptorDone.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
