package dev.samsa.group.classic;

import dev.samsa.event.ClusterEvent;
import dev.samsa.group.LivenessDriver;
import dev.samsa.time.MockScheduler;
import java.util.List;

/** A classic member for {@link dev.samsa.group.LivenessBoundaryTest}. */
public final class ClassicLivenessDriver implements LivenessDriver {

    private final ClassicGroupTestContext ctx = ClassicGroupTestContext.manualClock();
    private String memberId;

    @Override
    public MockScheduler scheduler() {
        return ctx.scheduler;
    }

    @Override
    public void heartbeatingMember(String instanceId) {
        memberId = ctx.stableWithOneMember("c1", instanceId);
        ctx.scheduler.advanceWall(1_000);
        ctx.heartbeat(memberId, "c1");
        ctx.scheduler.advanceWall(INTERVAL_MS);
        ctx.heartbeat(memberId, "c1");
    }

    @Override
    public void heartbeat() {
        ctx.heartbeat(memberId, "c1");
    }

    @Override
    public void connectionClosed() {
        ctx.classic.liveness().connectionClosed(ctx.group(), ClassicGroupTestContext.connection("c1"));
    }

    @Override
    public void staticMemberGoesAway() {
        connectionClosed();
    }

    @Override
    public boolean isMember() {
        return ctx.group().hasMember(memberId);
    }

    @Override
    public boolean instanceIdTaken(String instanceId) {
        return ctx.group().hasStaticMember(instanceId);
    }

    @Override
    public String sessionKey() {
        return ClassicGroupTestContext.heartbeatKey(memberId);
    }

    @Override
    public List<ClusterEvent> events() {
        return ctx.events(ClusterEvent.class);
    }

    @Override
    public String toString() {
        return "classic member";
    }
}
