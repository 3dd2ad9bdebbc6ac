package dev.samsa.group.modern.consumer;

/**
 * When and over which connection a member was last heard, in wall time, for the liveness rule of DESIGN.md: a jump of
 * the manual clock past a member's session removes it only if it has also been silent in wall time for longer than
 * twice its heartbeat interval, or its connection closed. The interval is the one the coordinator gave it or, when
 * longer, the longest gap the member really left between an answer and its next heartbeat (a real client's timer
 * slips on a loaded machine). Not persisted: a loaded member counts as
 * just heard. Owned by the cluster loop.
 */
final class MemberLiveness {

    private long lastHeardWallMs;
    private String connection;
    private boolean connectionClosed;
    /** A heartbeat of it waits for its answer (its record's replication): the client sends no other until then. */
    private boolean awaitingAnswer;
    private long longestGapMs;

    MemberLiveness(long nowWallMs) {
        this.lastHeardWallMs = nowWallMs;
    }

    void heard(String connection, long nowWallMs) {
        if (!awaitingAnswer && this.connection != null) {
            longestGapMs = Math.max(longestGapMs, nowWallMs - lastHeardWallMs);
        }
        this.lastHeardWallMs = nowWallMs;
        this.connection = connection;
        this.connectionClosed = false;
        this.awaitingAnswer = true;
    }

    /** Its heartbeat was answered: its next one is due a heartbeat interval from now. */
    void answered(long nowWallMs) {
        this.lastHeardWallMs = nowWallMs;
        this.awaitingAnswer = false;
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
        return connectionClosed || msUntilSilent(nowWallMs, heartbeatIntervalMs) < 0;
    }

    /** How much longer it may stay quiet before it counts as silent; negative once it does. */
    long msUntilSilent(long nowWallMs, long heartbeatIntervalMs) {
        if (awaitingAnswer) {
            return 2 * heartbeatIntervalMs;
        }
        return 2 * Math.max(heartbeatIntervalMs, longestGapMs) - (nowWallMs - lastHeardWallMs);
    }
}
