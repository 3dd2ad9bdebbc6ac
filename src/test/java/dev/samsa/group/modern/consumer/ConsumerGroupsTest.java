package dev.samsa.group.modern.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.event.AssignmentDistributed;
import dev.samsa.event.Timeline;
import dev.samsa.group.modern.Assignment;
import dev.samsa.group.modern.MemberState;
import dev.samsa.group.modern.TopicMetadata;
import dev.samsa.time.MockScheduler;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The heartbeat flow without a cluster, on a manual {@link MockScheduler}: a second member gets partitions only after
 * the first revoked them, and a member that does not revoke within its rebalance timeout is fenced, unless it is still
 * talking in wall time when the cluster clock jumps.
 */
class ConsumerGroupsTest implements ConsumerGroupContext {

    private static final Uuid ORDERS = new Uuid(9, 9);
    private static final int REBALANCE_TIMEOUT_MS = 30_000;

    private final MockScheduler scheduler = MockScheduler.manual();
    private final Timeline timeline = new Timeline(scheduler::nowMs, scheduler::wallMs);
    private final ConsumerGroup group = new ConsumerGroup("g", timeline);
    private final ConsumerGroups groups = new ConsumerGroups(this, timeline);

    @Test
    void aJoiningMemberGetsPartitionsOnlyOnceTheOwnerRevokedThem() {
        HeartbeatResult a = join("a");
        assertThat(a.assignment()).isEqualTo(partitions(0, 1, 2, 3));

        HeartbeatResult b = join("b");
        assertThat(b.assignment()).as("b's target is still owned by a").isEqualTo(Assignment.EMPTY);
        assertThat(group.memberOrNull("b").state()).isEqualTo(MemberState.UNRELEASED_PARTITIONS);

        HeartbeatResult aRevoking = heartbeat("a", a.memberEpoch(), partitions(0, 1, 2, 3));
        assertThat(aRevoking.assignment()).as("a keeps two, must give up two").isEqualTo(partitions(0, 1));
        assertThat(aRevoking.memberEpoch()).as("a stays in its epoch until it revoked").isEqualTo(a.memberEpoch());
        assertThat(heartbeat("b", b.memberEpoch(), Assignment.EMPTY).assignment()).as("nothing released yet").isNull();

        HeartbeatResult aRevoked = heartbeat("a", a.memberEpoch(), partitions(0, 1));
        assertThat(aRevoked.memberEpoch()).isEqualTo(group.groupEpoch());
        assertThat(heartbeat("b", b.memberEpoch(), Assignment.EMPTY).assignment()).isEqualTo(partitions(2, 3));
        assertThat(group.state()).isEqualTo(ConsumerGroupState.STABLE);
        assertThat(timeline.events(AssignmentDistributed.class)).last().satisfies(e -> {
            assertThat(e.generation()).isEqualTo(group.groupEpoch());
            assertThat(e.partitions()).isEqualTo(Map.of("a", List.of("orders-0", "orders-1"), "b", List.of("orders-2", "orders-3")));
        });
    }

    @Test
    void aMemberThatDoesNotRevokeIsFencedByItsRebalanceTimeoutOnceSilent() {
        HeartbeatResult a = join("a");
        join("b");
        heartbeat("a", a.memberEpoch(), partitions(0, 1, 2, 3));
        assertThat(group.memberOrNull("a").state()).isEqualTo(MemberState.UNREVOKED_PARTITIONS);

        // A jump past the rebalance timeout while a spoke a moment ago in wall time: a gets it again in wall time.
        scheduler.advance(REBALANCE_TIMEOUT_MS);
        assertThat(group.memberOrNull("a")).as("still talking").isNotNull();

        // Now it stays silent for the whole rebalance timeout of wall time: fenced, its partitions free for b.
        scheduler.advanceWall(REBALANCE_TIMEOUT_MS);
        assertThat(group.memberOrNull("a")).as("fenced").isNull();
        assertThat(group.currentPartitionEpoch(ORDERS, 0)).isEqualTo(-1);
    }

    private HeartbeatResult join(String memberId) {
        return groups.heartbeat(group, new HeartbeatRequest("g", memberId, 0, null, null, REBALANCE_TIMEOUT_MS,
                List.of("orders"), null, null, Assignment.EMPTY, "client-" + memberId, "conn-" + memberId));
    }

    private HeartbeatResult heartbeat(String memberId, int epoch, Assignment owned) {
        return groups.heartbeat(group, new HeartbeatRequest("g", memberId, epoch, null, null, -1, null, null, null, owned,
                "client-" + memberId, "conn-" + memberId));
    }

    private static Assignment partitions(Integer... ps) {
        return Assignment.of(Map.of(ORDERS, Set.of(ps)));
    }

    @Override
    public MockScheduler scheduler() {
        return scheduler;
    }

    @Override
    public ConsumerGroup consumerGroupOrNull(String groupId) {
        return group;
    }

    @Override
    public ConsumerGroupConfig consumerConfig() {
        return new ConsumerGroupConfig(5000, 45000, Integer.MAX_VALUE, List.of("uniform", "range"));
    }

    @Override
    public Map<String, TopicMetadata> topics() {
        return Map.of("orders", new TopicMetadata(ORDERS, "orders", 4));
    }

    @Override
    public void persistConsumerGroup(ConsumerGroup group, Consumer<Errors> done) {
        done.accept(Errors.NONE);
    }
}
