package dev.samsa.group.modern.consumer;

/**
 * When and over which connection a member was last heard, in wall time, for the liveness rule of DESIGN.md: a jump of
 * the manual clock past a member's session removes it only if it has also been silent in wall time for longer than
 * the heartbeat interval the coordinator gave it, or its connection closed. Not persisted: a loaded member counts as
 * just heard. Owned by the cluster loop.
 */
final class MemberLiveness {

    private long lastHeardWallMs;
    private String connection;
    private boolean connectionClosed;

    MemberLiveness(long nowWallMs) {
        this.lastHeardWallMs = nowWallMs;
    }

    void heard(String connection, long nowWallMs) {
        this.lastHeardWallMs = nowWallMs;
        this.connection = connection;
        this.connectionClosed = false;
    }

    /** Returns whether the member last spoke on {@code closed}, which is now closed. */
    boolean connectionClosed(String closed) {
        if (closed.equals(connection) && !connectionClosed) {
            connectionClosed = true;
            return true;
        }
        return false;
    }

    /** A member that left for a while (static, epoch -2) says nothing until it comes back. */
    void silence() {
        connectionClosed = true;
    }

    boolean silentInWallTime(long nowWallMs, long heartbeatIntervalMs) {
        return connectionClosed || nowWallMs - lastHeardWallMs > heartbeatIntervalMs;
    }
}
