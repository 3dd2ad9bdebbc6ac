package dev.samsa.group.classic;

/**
 * The classic protocol, one object per request phase: {@link ClassicGroupJoin} (JoinGroup), {@link ClassicGroupSync}
 * (SyncGroup) and {@link ClassicGroupLiveness} (Heartbeat, LeaveGroup, closed connections). The phases call the one
 * {@link ClassicGroupRebalancer} and never each other; it never calls them. Owned by the cluster loop.
 */
public final class ClassicGroups {

    private final ClassicGroupRebalancer rebalancer;
    private final ClassicGroupJoin join;
    private final ClassicGroupSync sync;
    private final ClassicGroupLiveness liveness;

    public ClassicGroups(ClassicGroupContext context) {
        this.rebalancer = new ClassicGroupRebalancer(context);
        this.join = new ClassicGroupJoin(context, rebalancer);
        this.sync = new ClassicGroupSync(context, rebalancer);
        this.liveness = new ClassicGroupLiveness(context, rebalancer);
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

    public ClassicGroupRebalancer rebalancer() {
        return rebalancer;
    }
}
