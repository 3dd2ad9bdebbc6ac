package dev.samsa.group.classic;

/**
 * The classic protocol, one object per phase: {@link ClassicGroupJoin} (JoinGroup, rebalance preparation and the
 * join-phase timeout), {@link ClassicGroupSync} (SyncGroup, assignment propagation, the sync-phase timeout) and
 * {@link ClassicGroupLiveness} (Heartbeat, LeaveGroup, session expiry). They call each other through this holder.
 * Owned by the cluster loop.
 */
public final class ClassicGroups {

    final ClassicGroupContext context;
    final ClassicGroupJoin join;
    final ClassicGroupSync sync;
    final ClassicGroupLiveness liveness;

    public ClassicGroups(ClassicGroupContext context) {
        this.context = context;
        this.join = new ClassicGroupJoin(this);
        this.sync = new ClassicGroupSync(this);
        this.liveness = new ClassicGroupLiveness(this);
    }

    public ClassicGroupJoin join() {
        return join;
    }

    public ClassicGroupSync sync() {
        return sync;
    }

    public ClassicGroupLiveness liveness() {
        return liveness;
    }
}
