package dev.samsa.group.modern.consumer;

import dev.samsa.event.ClusterEvent;
import dev.samsa.event.Timeline;
import dev.samsa.group.LivenessDriver;
import dev.samsa.group.modern.Assignment;
import dev.samsa.group.modern.TopicMetadata;
import dev.samsa.time.MockScheduler;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/** A consumer-protocol (KIP-848) member for {@link dev.samsa.group.LivenessBoundaryTest}. */
public final class ConsumerLivenessDriver implements LivenessDriver, ConsumerGroupContext {

    private static final Uuid ORDERS = new Uuid(9, 9);

    private final MockScheduler scheduler = MockScheduler.manual();
    private final Timeline timeline = new Timeline(scheduler::nowMs, scheduler::wallMs);
    private final ConsumerGroup group = new ConsumerGroup("g", timeline);
    private final ConsumerGroups groups = new ConsumerGroups(this, timeline);
    private String instanceId;
    private int epoch;

    @Override
    public void heartbeatingMember(String instanceId) {
        this.instanceId = instanceId;
        epoch = send(0, null).memberEpoch();
        scheduler.advanceWall(1_000);
        heartbeat();
        scheduler.advanceWall(INTERVAL_MS);
        heartbeat();
    }

    @Override
    public void heartbeat() {
        epoch = send(epoch, group.memberOrNull("a").assignedPartitions()).memberEpoch();
    }

    /** A heartbeat of member "a", answered once its records replicated, as the handler answers it. */
    private HeartbeatResult send(int memberEpoch, Assignment owned) {
        HeartbeatResult result = groups.heartbeat(group, new HeartbeatRequest("g", "a", memberEpoch, instanceId, null,
                memberEpoch == 0 ? 30_000 : -1, memberEpoch == 0 ? List.of("orders") : null, null, null,
                memberEpoch == 0 ? Assignment.EMPTY : owned, "client-a", "conn-a"));
        groups.answered(group, "a");
        return result;
    }

    @Override
    public void connectionClosed() {
        groups.connectionClosed(group, "conn-a");
    }

    @Override
    public void staticMemberGoesAway() {
        send(HeartbeatRequest.STATIC_LEAVE, null);
    }

    @Override
    public boolean isMember() {
        return group.memberOrNull("a") != null;
    }

    @Override
    public boolean instanceIdTaken(String instanceId) {
        return group.staticMemberOrNull(instanceId) != null;
    }

    @Override
    public String sessionKey() {
        return ConsumerGroups.sessionKey("g", "a");
    }

    @Override
    public List<ClusterEvent> events() {
        return timeline.events(ClusterEvent.class);
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
        return new ConsumerGroupConfig((int) INTERVAL_MS, (int) SESSION_TIMEOUT_MS, Integer.MAX_VALUE, List.of("uniform", "range"));
    }

    @Override
    public Map<String, TopicMetadata> topics() {
        return Map.of("orders", new TopicMetadata(ORDERS, "orders", 4));
    }

    @Override
    public void persistConsumerGroup(ConsumerGroup group, Consumer<Errors> done) {
        done.accept(Errors.NONE);
    }

    @Override
    public String toString() {
        return "consumer-protocol member";
    }
}
