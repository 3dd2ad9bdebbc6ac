package dev.samsa.group;

/**
 * The liveness rule of DESIGN.md, for every member kind (classic, consumer, and the share and streams members to
 * come): when and over which connection a member was last heard in wall time, and what a liveness deadline (a
 * session, a rebalance or revocation timeout) that passed in cluster time does with it.
 *
 * <p>On the system clock a deadline is Kafka's: everything that counts as hearing from a member also re-arms its
 * deadline, so a deadline that fires means the member really was quiet for that long. On a manual clock the test's
 * thread can jump past a deadline while the member's client goes on heartbeating on its own wall-time timer, so the
 * deadline removes the member only if it is also {@linkplain #silentInWallTime silent in wall time}: its connection
 * closed (a killed process closes its sockets), or it said nothing for longer than {@link #SILENT_AFTER_INTERVALS}
 * heartbeat intervals. A member still talking is judged again once it could have gone silent; its next heartbeat
 * re-arms the deadline in cluster time first.
 *
 * <p>The interval is the one the coordinator told the member (a consumer-protocol member heartbeats on it) or, for a
 * classic member, which chose its own, a third of its session (the clients' default ratio) until it has left a gap;
 * and when longer, the longest gap the member really left between being heard or answered and its next heartbeat (a
 * real client's timer slips on a loaded machine). Not persisted: a loaded member counts as just heard. Owned by the
 * cluster loop.
 */
public final class MemberLiveness {

    /**
     * How many heartbeat intervals of wall-time silence make a member silent: one is the client's own timer; the
     * second absorbs a timer that slips, or a heartbeat thread that does not get a core on a busy machine.
     */
    public static final int SILENT_AFTER_INTERVALS = 2;

    /**
     * How long, in wall time, a deadline waits before judging a member whose connection is still open. A client killed
     * just before a jump has closed its sockets, but the broker's reader thread may not have noticed yet.
     */
    public static final long CONNECTION_CLOSE_GRACE_MS = 200;

    /** What a liveness deadline that passed in cluster time does with the member. */
    public enum Verdict {
        /** Remove (or fence) the member, as Kafka does when its deadline passes. */
        EXPIRE,
        /** Its connection is open: judge it again after {@link #CONNECTION_CLOSE_GRACE_MS} of wall time. */
        GRACE,
        /** It is still talking: judge it again in {@link #msUntilSilent} + 1 ms of wall time. */
        REARM
    }

    private final boolean intervalTold;
    private long intervalMs;
    private long lastHeardWallMs;
    private String connection;
    private boolean connectionClosed;
    /** A request of it waits for its answer (a heartbeat's records replicating): the client sends no other until then. */
    private boolean awaitingAnswer;
    private long longestGapMs;

    private MemberLiveness(boolean intervalTold, long intervalMs, long nowWallMs) {
        this.intervalTold = intervalTold;
        this.intervalMs = intervalMs;
        this.lastHeardWallMs = nowWallMs;
    }

    /** A member that heartbeats on the interval the coordinator tells it (the consumer protocol). */
    public static MemberLiveness toldInterval(long heartbeatIntervalMs, long nowWallMs) {
        return new MemberLiveness(true, heartbeatIntervalMs, nowWallMs);
    }

    /** A member that chose its own interval (the classic protocol): a third of its session until it has left a gap. */
    public static MemberLiveness ownInterval(long sessionTimeoutMs, long nowWallMs) {
        return new MemberLiveness(false, sessionTimeoutMs / 3, nowWallMs);
    }

    /** The interval it was told changed, or (classic) the session it asked for did. */
    public void interval(long heartbeatOrSessionMs) {
        this.intervalMs = intervalTold ? heartbeatOrSessionMs : heartbeatOrSessionMs / 3;
    }

    /** Any request from the member (the kind decides which count), on {@code connection}: it is alive now. */
    public void heard(String connection, long nowWallMs) {
        this.lastHeardWallMs = nowWallMs;
        this.connection = connection;
        this.connectionClosed = false;
    }

    /** Its periodic heartbeat: heard, and the wall time since it was last heard or answered is a gap it really left. */
    public void heartbeat(String connection, long nowWallMs) {
        if (!awaitingAnswer && this.connection != null) {
            longestGapMs = Math.max(longestGapMs, nowWallMs - lastHeardWallMs);
        }
        heard(connection, nowWallMs);
    }

    /** Its request waits for an answer; until {@link #answered} it is not silent, whatever the wall time. */
    public void awaitingAnswer() {
        this.awaitingAnswer = true;
    }

    /** Its request was answered: its next heartbeat is due an interval from now. */
    public void answered(long nowWallMs) {
        this.lastHeardWallMs = nowWallMs;
        this.awaitingAnswer = false;
    }

    /** Returns whether the member last spoke on {@code closed}, which is now closed: it is silent until it speaks again. */
    public boolean connectionClosed(String closed) {
        if (closed.equals(connection) && !connectionClosed) {
            connectionClosed = true;
            return true;
        }
        return false;
    }

    /** A member that left for a while (a static consumer-protocol member, epoch -2) says nothing until it comes back. */
    public void silence() {
        connectionClosed = true;
    }

    public boolean isConnected() {
        return connection != null && !connectionClosed;
    }

    /** The heartbeat interval its silence is measured in (see the class comment). */
    public long heartbeatIntervalMs() {
        if (!intervalTold && longestGapMs > 0) {
            return longestGapMs;
        }
        return Math.max(intervalMs, longestGapMs);
    }

    public long msSinceHeard(long nowWallMs) {
        return nowWallMs - lastHeardWallMs;
    }

    /** Its connection closed, or it has said nothing for longer than {@link #SILENT_AFTER_INTERVALS} intervals. */
    public boolean silentInWallTime(long nowWallMs) {
        return connectionClosed || msUntilSilent(nowWallMs) < 0;
    }

    /** How much longer it may stay quiet before it counts as silent; negative once it does. */
    public long msUntilSilent(long nowWallMs) {
        long allowed = SILENT_AFTER_INTERVALS * heartbeatIntervalMs();
        return awaitingAnswer ? allowed : allowed - msSinceHeard(nowWallMs);
    }

    /**
     * What a liveness deadline that passed in cluster time does with this member.
     *
     * @param graceGiven whether this judgement comes after the {@linkplain Verdict#GRACE grace} of an open connection
     */
    public Verdict atDeadline(long nowWallMs, boolean manualClock, boolean graceGiven) {
        if (!manualClock || silentInWallTime(nowWallMs)) {
            return Verdict.EXPIRE;
        }
        return graceGiven ? Verdict.REARM : Verdict.GRACE;
    }
}
