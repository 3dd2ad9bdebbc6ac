package dev.samsa.group.classic;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.event.ClusterEvent;
import dev.samsa.event.Timeline;
import dev.samsa.time.MockScheduler;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.protocol.Errors;

/**
 * The classic protocol without a cluster, a thread or a socket, as Kafka's {@code GroupMetadataManagerTestContext}:
 * the coordinator's side is a map of groups, a {@link MockScheduler} and a group record that is "replicated" at once.
 * Tests drive the request phases directly and move time by hand.
 */
final class ClassicGroupTestContext implements ClassicGroupContext {

    static final int SESSION_TIMEOUT_MS = 45_000;
    static final int REBALANCE_TIMEOUT_MS = 30_000;
    static final String GROUP = "billing";

    final MockScheduler scheduler;
    final Timeline timeline;
    final ClassicGroups classic;
    private final Map<String, ClassicGroup> groups = new HashMap<>();
    private int memberIds;
    /** The states the group record was written in, in order. */
    final List<ClassicGroupState> writes = new ArrayList<>();
    /** When set, a write waits for the test to say how its replication ended ({@link #heldWrites}). */
    boolean holdWrites;
    final List<Consumer<Errors>> heldWrites = new ArrayList<>();

    ClassicGroupTestContext(MockScheduler scheduler) {
        this.scheduler = scheduler;
        this.timeline = new Timeline(scheduler::nowMs, scheduler::wallMs);
        this.classic = new ClassicGroups(this);
    }

    /** A manual cluster clock: a jump of cluster time leaves wall time where it was. */
    static ClassicGroupTestContext manualClock() {
        return new ClassicGroupTestContext(MockScheduler.manual());
    }

    @Override
    public MockScheduler scheduler() {
        return scheduler;
    }

    @Override
    public ClassicGroup groupOrNull(String groupId) {
        return groups.get(groupId);
    }

    @Override
    public ClassicGroupConfig classicConfig() {
        return new ClassicGroupConfig(6_000, 1_800_000, Integer.MAX_VALUE, 0, 300_000);
    }

    @Override
    public String newMemberUuid() {
        return Integer.toString(++memberIds);
    }

    @Override
    public void persistGroup(ClassicGroup group, Consumer<Errors> done) {
        writes.add(group.state());
        if (holdWrites) {
            heldWrites.add(done);
        } else {
            done.accept(Errors.NONE);
        }
    }

    ClassicGroup group() {
        return groups.computeIfAbsent(GROUP, id -> new ClassicGroup(id, timeline, scheduler.nowMs()));
    }

    /** A client's connection to the coordinator, as the network names it. */
    static String connection(String clientId) {
        return "1/" + clientId + ":5000";
    }

    /** A JoinGroup answer that may still be parked. */
    static final class PendingJoin implements Consumer<JoinResult> {
        JoinResult result;

        @Override
        public void accept(JoinResult r) {
            result = r;
        }

        JoinResult get() {
            assertThat(result).as("JoinGroup answer").isNotNull();
            return result;
        }
    }

    /** A SyncGroup answer that may still be parked. */
    static final class PendingSync implements Consumer<SyncResult> {
        SyncResult result;

        @Override
        public void accept(SyncResult r) {
            result = r;
        }
    }

    PendingJoin join(String memberId, String instanceId, String clientId) {
        PendingJoin answer = new PendingJoin();
        byte[] subscription = toArray(ConsumerProtocol.serializeSubscription(new Subscription(List.of("orders"))));
        JoinRequest req = new JoinRequest(GROUP, memberId, instanceId, "consumer", List.of(new Protocol("range", subscription)),
                SESSION_TIMEOUT_MS, REBALANCE_TIMEOUT_MS, clientId, connection(clientId), false, true, "test");
        classic.join().join(group(), req, answer);
        return answer;
    }

    /** Two members in generation 2, both answered, the group CompletingRebalance and waiting for their SyncGroups. */
    JoinResult[] completingWithTwoMembers() {
        String first = stableWithOneMember("c1", null);
        PendingJoin second = join("", null, "c2");
        PendingJoin rejoined = join(first, null, "c1");
        assertThat(group().state()).as("%s", group()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        return new JoinResult[] {rejoined.get(), second.get()};
    }

    PendingSync sync(JoinResult joined, String clientId) {
        PendingSync answer = new PendingSync();
        Map<String, byte[]> assignment = new HashMap<>();
        joined.members().forEach(m -> assignment.put(m.memberId(), new byte[] {1}));
        classic.sync().sync(group(), joined.memberId(), null, joined.generationId(), "consumer", joined.protocolName(),
                assignment, connection(clientId), answer);
        return answer;
    }

    void heartbeat(String memberId, String clientId) {
        classic.liveness().heartbeat(group(), memberId, group().member(memberId).groupInstanceId(), group().generationId(),
                connection(clientId));
    }

    /**
     * One member, joined and synced: the group is Stable in generation 1. The member spoke last at the current wall
     * time, on its own connection.
     */
    String stableWithOneMember(String clientId, String instanceId) {
        PendingJoin joined = join("", instanceId, clientId);
        // group.initial.rebalance.delay.ms is 0 here: the initial rebalance completes on the next timer run.
        assertThat(scheduler.advance(0)).containsExactly("join-" + GROUP);
        sync(joined.get(), clientId);
        assertThat(group().state()).as("%s", group()).isEqualTo(ClassicGroupState.STABLE);
        return joined.get().memberId();
    }

    <T extends ClusterEvent> List<T> events(Class<T> kind) {
        return timeline.events(kind);
    }

    static String heartbeatKey(String memberId) {
        return ClassicGroupRebalancer.heartbeatKey(GROUP, memberId);
    }

    private static byte[] toArray(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return bytes;
    }
}
