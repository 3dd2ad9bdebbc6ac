package dev.samsa.group;

import dev.samsa.event.ClusterEvent;
import dev.samsa.time.MockScheduler;
import java.util.List;

/**
 * One member of one kind (classic, consumer protocol) in a group on a manual {@link MockScheduler}, driven the way its
 * client drives it, so that {@link LivenessBoundaryTest} runs one table of boundaries against every member kind.
 */
public interface LivenessDriver {

    /** The heartbeat interval the member keeps: its own (classic) or the one the coordinator tells it (consumer). */
    long INTERVAL_MS = 3_000;
    long SESSION_TIMEOUT_MS = 45_000;

    MockScheduler scheduler();

    /** A member that has heartbeated twice, {@link #INTERVAL_MS} apart in wall time, the last one just now. */
    void heartbeatingMember(String instanceId);

    /** Its next heartbeat, answered. */
    void heartbeat();

    /** The connection it heartbeats on closed (its process was killed). */
    void connectionClosed();

    /**
     * A static member goes away without leaving: its client closes (classic: no LeaveGroup for static members;
     * consumer protocol: a heartbeat with epoch -2).
     */
    void staticMemberGoesAway();

    boolean isMember();

    /** Whether the static instance id still names a member. */
    boolean instanceIdTaken(String instanceId);

    /** The key of the member's session timer. */
    String sessionKey();

    List<ClusterEvent> events();
}
