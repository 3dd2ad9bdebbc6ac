package dev.samsa;

import dev.samsa.network.Listener;

/** A handle on one broker of a running cluster. Broker ids start at 1. */
public final class Broker {

    private final int id;
    private final Listener listener;

    Broker(int id, Listener listener) {
        this.id = id;
        this.listener = listener;
    }

    public int id() {
        return id;
    }

    public int port() {
        return listener.port();
    }

    public String address() {
        return "127.0.0.1:" + port();
    }

    /** Drops every client connection of this broker; clients reconnect. */
    public void dropConnections() {
        listener.closeConnections();
    }

    void close() {
        listener.close();
    }

    @Override
    public String toString() {
        return "broker " + id + " at " + address();
    }
}
