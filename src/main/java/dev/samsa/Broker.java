package dev.samsa;

import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Controller;
import dev.samsa.event.BrokerIsolated;
import dev.samsa.event.CertificateRotated;
import dev.samsa.event.ClientConnectionsDropped;
import dev.samsa.event.IsolationHealed;
import dev.samsa.event.SaslSessionsExpired;
import dev.samsa.group.GroupCoordinator;
import dev.samsa.txn.TransactionCoordinator;
import dev.samsa.handler.BrokerContext;
import dev.samsa.handler.FetchSessionCache;
import dev.samsa.handler.Handlers;
import dev.samsa.network.FrameLimits;
import dev.samsa.network.Listener;
import dev.samsa.network.WallClock;
import dev.samsa.security.ClusterSecurity;
import dev.samsa.security.ListenerSecurity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A handle on one broker of a running cluster, and the faults a test applies to it. Broker ids start at 1.
 *
 * <p>{@link #crash()} is a process crash: connections drop, in-memory state (fetch sessions, follower progress) is
 * lost, the mapped log files survive. {@link #powerLoss()} also loses every byte written since the last flush.
 * {@link #shutdown()} is a controlled shutdown that moves leadership away first. {@link #restart()} brings the
 * broker back on the same port, recovers its logs and lets its replicas catch up and rejoin the ISR.
 */
public final class Broker {

    private final int id;
    private final String name;
    private final ClusterState state;
    private final Handlers handlers;
    private final GroupCoordinator groups;
    private final TransactionCoordinator transactions;
    private final FrameLimits limits;
    private final ClusterSecurity security;
    /** One port per listener, in the cluster's listener order; the first is the broker's {@link #port()}. */
    private final List<Integer> ports;
    private volatile Listeners listener;
    private volatile boolean running = true;

    /** @param ports one per listener of {@code security}, 0 for an ephemeral one */
    Broker(int id, String name, List<Integer> ports, ClusterState state, Handlers handlers, GroupCoordinator groups,
           TransactionCoordinator transactions, FrameLimits limits, ClusterSecurity security) throws IOException {
        this.id = id;
        this.name = name;
        this.state = state;
        this.handlers = handlers;
        this.groups = groups;
        this.transactions = transactions;
        this.limits = limits;
        this.security = security;
        this.listener = listen(ports);
        this.ports = listener.ports();
        List<ListenerSecurity> listeners = security.listeners(id);
        for (int i = 0; i < listeners.size(); i++) {
            security.registerPort(listeners.get(i).protocol(), id, this.ports.get(i));
        }
    }

    private Listeners listen(List<Integer> ports) throws IOException {
        // A fresh context: fetch sessions are memory, and memory does not survive a crash.
        BrokerContext context = new BrokerContext(id, state, new FetchSessionCache(state.random()), handlers, groups,
                transactions, security);
        List<ListenerSecurity> listeners = security.listeners(id);
        List<Listener> bound = new ArrayList<>();
        try {
            for (int i = 0; i < listeners.size(); i++) {
                ListenerSecurity l = listeners.get(i);
                String listenerName = i == 0 ? name : name + "-" + l.listenerName().toLowerCase(java.util.Locale.ROOT);
                bound.add(new Listener(listenerName, ports.get(i), handlers.dispatcherFor(context), limits,
                        error -> state.loop().reportUnexpected(id, error), l,
                        new WallClock(state.loop()::wallNanos, state.loop()::epochMillis)));
            }
        } catch (IOException | RuntimeException e) {
            bound.forEach(Listener::close);
            throw e;
        }
        return new Listeners(bound);
    }

    /** A broker's listeners, one per security protocol, stopped and started together. */
    private record Listeners(List<Listener> all) {

        List<Integer> ports() {
            return all.stream().map(Listener::port).toList();
        }

        void refuseClients(boolean refuse) {
            all.forEach(l -> l.refuseClients(refuse));
        }

        void closeConnections() {
            all.forEach(Listener::closeConnections);
        }

        void close() {
            all.forEach(Listener::close);
        }
    }

    public int id() {
        return id;
    }

    /** The port of the cluster's first listener, the same across restarts: clients cache broker addresses. */
    public int port() {
        return ports.get(0);
    }

    public String address() {
        return "127.0.0.1:" + port();
    }

    /**
     * The address of this broker's listener for {@code protocol}.
     *
     * @throws IllegalArgumentException if the cluster has no such listener
     */
    public String address(Security.Protocol protocol) {
        int index = security.protocols().indexOf(protocol.toSecurityProtocol());
        if (index < 0) {
            throw new IllegalArgumentException("This cluster has no " + protocol + " listener; its listeners are "
                    + security.protocols());
        }
        return "127.0.0.1:" + ports.get(index);
    }

    public boolean isRunning() {
        return running;
    }

    /** Kills the broker process: see the class comment. */
    public void crash() {
        stop(Controller.Stop.CRASH);
    }

    /** Cuts the power: like {@link #crash()}, and unflushed bytes are lost, possibly in the middle of a batch. */
    public void powerLoss() {
        stop(Controller.Stop.POWER_LOSS);
    }

    /** Controlled shutdown: leadership moves to other in-sync replicas first, then the broker stops cleanly. */
    public void shutdown() {
        stop(Controller.Stop.SHUTDOWN);
    }

    // The faults below run whole on the cluster loop, one at a time (no lock): an event trigger applies them from
    // the loop itself, where a lock held by a test thread waiting for the loop would deadlock.
    private void stop(Controller.Stop how) {
        state.loop().call(() -> {
            if (!running) {
                throw new IllegalStateException("Broker " + id + " is not running; restart() it first");
            }
            if (how != Controller.Stop.SHUTDOWN) {
                listener.refuseClients(true);
            }
            state.controller().brokerStopped(id, how, state.random());
            // The port stays bound, refusing every connection, so that no other socket takes it before restart().
            listener.refuseClients(true);
            running = false;
            return null;
        });
    }

    /**
     * Starts a stopped broker again on the same port.
     *
     * @throws IllegalStateException if it is running
     */
    public void restart() {
        state.loop().call(() -> {
            if (running) {
                throw new IllegalStateException("Broker " + id + " is running; crash(), powerLoss() or shutdown() it first");
            }
            listener.close();
            try {
                listener = listen(ports);
            } catch (IOException e) {
                throw new UncheckedIOException("Broker " + id + " cannot listen on its ports " + ports + " again", e);
            }
            running = true;
            state.faults().heal(id);
            state.controller().brokerStarted(id);
            return null;
        });
    }

    /** Cuts this broker off from clients and from the other brokers (and so from the controller). */
    public void isolate() {
        isolate(true, true);
    }

    /** Clients cannot connect; replication and the controller are not affected. */
    public void isolateFromClients() {
        isolate(true, false);
    }

    /**
     * Replication to and from this broker stops and the controller fences it: its leaderships move to in-sync
     * replicas and it leaves every ISR. Clients can still connect to it, and since it hears nothing of this it goes on
     * serving as leader of its old epoch: acks=1 writes it acknowledges are truncated when it heals.
     */
    public void isolateFromBrokers() {
        isolate(false, true);
    }

    private void isolate(boolean fromClients, boolean fromBrokers) {
        state.loop().call(() -> {
            requireRunning();
            if (fromClients) {
                listener.refuseClients(true);
            }
            state.faults().isolate(id, fromBrokers);
            state.timeline().record(new BrokerIsolated(id, fromClients, fromBrokers));
            if (fromBrokers) {
                state.controller().brokerStopped(id, Controller.Stop.FENCED, state.random());
            }
            return null;
        });
    }

    /** Ends every isolation of this broker; it rejoins as follower and catches up. */
    public void heal() {
        state.loop().call(() -> {
            requireRunning();
            listener.refuseClients(false);
            boolean wasFenced = state.faults().heal(id);
            state.timeline().record(new IsolationHealed(id));
            if (wasFenced) {
                state.controller().brokerStarted(id);
            }
            return null;
        });
    }

    /** Drops every client connection of this broker; clients reconnect. */
    public void dropConnections() {
        Listeners l = listener;
        if (running) {
            l.closeConnections();
            state.loop().execute(() -> state.timeline().record(new ClientConnectionsDropped(id)));
        }
    }

    /**
     * Expires every SASL session on this broker's listeners now, as if connections.max.reauth.ms had run out: the next
     * request of each authenticated connection closes it, as Kafka closes a connection whose session expired, and the
     * client reconnects and authenticates again. (A client re-authenticates in place only on its own timer, from the
     * session lifetime it was told.)
     */
    public void expireSaslSessions() {
        Listeners l = listener;
        if (running) {
            l.all().forEach(Listener::expireSaslSessions);
            state.loop().execute(() -> state.timeline().record(new SaslSessionsExpired(id)));
        }
    }

    /**
     * Gives this broker a new key and certificate from the cluster's CA: new TLS connections get it, open ones keep
     * theirs, and a client that trusts the CA (every client config does) connects as before.
     *
     * @throws IllegalStateException when the cluster has no TLS listener or its brokers present a test's own keystore
     */
    public void rotateCertificate() {
        security.rotateCertificate(id);
        state.loop().execute(() -> state.timeline().record(new CertificateRotated(id)));
    }

    private void requireRunning() {
        if (!running) {
            throw new IllegalStateException("Broker " + id + " is not running");
        }
    }

    synchronized void close() {
        listener.close();
        running = false;
    }

    @Override
    public String toString() {
        return "broker " + id + " at " + address() + (isRunning() ? "" : " (stopped)");
    }
}
