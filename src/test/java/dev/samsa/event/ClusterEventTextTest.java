package dev.samsa.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * Each event prints as the line the timeline printed before events had fields, character for character, so the same
 * seed still prints the same timeline. The expected lines are the old text, built by the old string concatenations.
 */
class ClusterEventTextTest {

    private static final long AT = 1_767_225_600_000L; // 2026-01-01T00:00:00Z

    private static Map<ClusterEvent, String> samples() {
        Map<ClusterEvent, String> lines = new LinkedHashMap<>();
        lines.put(new ClusterStarted(42, 3), "ClusterStarted  seed=42 brokers=3");
        lines.put(new BrokerStarted(2), "BrokerStarted  broker=2");
        lines.put(new BrokerStopped(2, "CRASH"), "BrokerStopped  broker=2 how=CRASH");
        lines.put(new TopicCreated("orders", 6, 3, "5bP0QL4aR5K1SxkEkbPKXQ"),
                "TopicCreated  orders partitions=6 replicationFactor=3 id=5bP0QL4aR5K1SxkEkbPKXQ");
        lines.put(new PartitionsCreated("orders", 8), "PartitionsCreated  orders partitions=8");
        lines.put(new TopicDeleted("orders", "5bP0QL4aR5K1SxkEkbPKXQ"), "TopicDeleted  orders id=5bP0QL4aR5K1SxkEkbPKXQ");

        lines.put(new LeaderChanged("orders", 1, 3, 2, 1, List.of(2, 1), "broker 3 stopped", false),
                "LeaderChanged  orders-1 leader=3->2 epoch=1 isr=[2, 1] reason=broker 3 stopped");
        lines.put(new LeaderChanged("orders", 0, -1, 2, 4, List.of(2), "unclean leader election", true),
                "UncleanLeaderElected  orders-0 leader=-1->2 epoch=4 isr=[2] reason=unclean leader election");
        lines.put(new IsrExpanded("orders", 0, List.of(2, 3, 1), 1), "IsrExpanded  orders-0 isr=[2, 3, 1] added=1");
        lines.put(new IsrShrunk("orders", 0, List.of(2, 3), 1, "not caught up for more than replica.lag.time.max.ms=30000"),
                "IsrShrunk  orders-0 isr=[2, 3] removed=1 reason=not caught up for more than replica.lag.time.max.ms=30000");
        lines.put(new HighWatermark("orders", 0, 6), "HighWatermark  orders-0 hw=6");
        lines.put(new StaleLeaderAppend("orders", 0, 1, 3, 17), "StaleLeaderAppend  orders-0 broker=1 epoch=3 logEndOffset=17");
        lines.put(new Truncated("orders", 0, 1, 15, 5, 10, 4, "epoch 3 ends at 5 on the leader"),
                "Truncated  orders-0 broker=1 from=15 to=5 records=10 leaderEpoch=4 reason=epoch 3 ends at 5 on the leader");
        lines.put(new RetentionDeleted("logs", 0, 2, 0, 120), "RetentionDeleted  logs-0 broker=2 logStartOffset=0->120");
        lines.put(new Compacted("table", 0, 3, 9900, 10000),
                "Compacted  table-0 broker=3 recordsRemoved=9900 cleanedUpTo=10000");
        lines.put(new RecordsDeleted("orders", 0, 30, 1), "RecordsDeleted  orders-0 logStartOffset=30 on broker 1");
        lines.put(new ReassignmentStarted("moving", 0, List.of(2, 3, 1), List.of(3), List.of(1)),
                "ReassignmentStarted  moving-0 replicas=[2, 3, 1] adding=[3] removing=[1]");
        lines.put(new ReassignmentCompleted("moving", 0, List.of(2, 3), 2, 5),
                "ReassignmentCompleted  moving-0 replicas=[2, 3] leader=2 epoch=5");
        lines.put(new ReassignmentCancelled("moving", 0, List.of(1, 2), List.of(3)),
                "ReassignmentCancelled  moving-0 replicas=[1, 2] removed=[3]");
        lines.put(new ReassignmentAbandoned("moving", 0, List.of(2, 3), "Replica 3 is not alive"),
                "ReassignmentAbandoned  moving-0 target=[2, 3] reason=Replica 3 is not alive");

        lines.put(new FailuresScheduled("PRODUCE", "NOT_LEADER_OR_FOLLOWER", 3),
                "FaultApplied  fail next 3 PRODUCE with NOT_LEADER_OR_FOLLOWER");
        lines.put(new FaultInjected("PRODUCE", 2, "NOT_LEADER_OR_FOLLOWER"),
                "FaultInjected  PRODUCE to broker=2 answered NOT_LEADER_OR_FOLLOWER");
        lines.put(new ReplicationPaused("orders", 0, 1), "FaultApplied  pause replication of orders-0 to broker=1");
        lines.put(new ReplicationResumed("orders", 0, 1), "FaultHealed  resume replication of orders-0 to broker=1");
        lines.put(new BrokerLatency(2, Duration.ofMillis(5)), "FaultApplied  latency of broker=2 5 ms");
        lines.put(new BrokerLatency(2, Duration.ZERO), "FaultHealed  latency of broker=2 0 ms");
        // Under a millisecond is still a fault, as it was: the old text asked Duration.isZero, then printed millis.
        lines.put(new BrokerLatency(2, Duration.ofNanos(500)), "FaultApplied  latency of broker=2 0 ms");
        lines.put(new BrokerIsolated(3, true, true), "FaultApplied  isolate broker=3 from clients from brokers");
        lines.put(new BrokerIsolated(2, true, false), "FaultApplied  isolate broker=2 from clients");
        lines.put(new BrokerIsolated(2, false, true), "FaultApplied  isolate broker=2 from brokers");
        lines.put(new IsolationHealed(3), "FaultHealed  isolation of broker=3");
        lines.put(new ClientConnectionsDropped(1), "FaultApplied  dropped client connections of broker=1");
        lines.put(new SaslSessionsExpired(2), "FaultApplied  expired SASL sessions of broker=2");
        lines.put(new CertificateRotated(3), "FaultApplied  rotated the certificate of broker=3");
        lines.put(new RecordsAcknowledged("orders", 0, 3), "RecordsAcknowledged  orders-0 acknowledged=3");
        lines.put(new AuthenticationFailed(1, "SASL_SSL", "PLAIN", "User:alice", "Authentication failed: Invalid username or password"),
                "AuthenticationFailed  broker=1 listener=SASL_SSL mechanism=PLAIN principal=User:alice message=Authentication failed: Invalid username or password");
        lines.put(new AuthorizationDenied(2, "User:alice", "READ", "GROUP", "billing", "JOIN_GROUP"),
                "AuthorizationDenied  broker=2 principal=User:alice operation=READ resource=GROUP:billing api=JOIN_GROUP");
        lines.put(new RequestsIntercepted("OFFSET_COMMIT"), "FaultApplied  intercept OFFSET_COMMIT requests");
        lines.put(new RequestsIntercepted(null), "FaultApplied  intercept every request");
        lines.put(new InterceptionRemoved("OFFSET_COMMIT"), "FaultHealed  interception of OFFSET_COMMIT requests removed");
        lines.put(new InterceptionRemoved(null), "FaultHealed  interception of every request removed");
        lines.put(new TxnMarkersHeld("orders", 1, -1), "FaultApplied  hold transaction markers of orders-1");
        lines.put(new TxnMarkersHeld(null, -1, 2), "FaultApplied  hold transaction markers of partitions led by broker=2");
        lines.put(new TxnMarkersReleased("orders", 1, -1, 3), "FaultHealed  release transaction markers of orders-1 queued=3");
        lines.put(new TxnCoordinatorFaultArmed("tx-1", "PrepareCommit", "crash"),
                "FaultApplied  crash the coordinator of transactionalId=tx-1 when PrepareCommit is replicated");

        lines.put(new GroupCreated("billing", 2, false), "GroupCreated  group=billing coordinator=2");
        lines.put(new GroupCreated("billing", 2, true), "GroupCreated  group=billing (simple, by an offset commit)");
        lines.put(new GroupRemoved("billing", "Empty with no offsets left"),
                "GroupRemoved  group=billing reason: Empty with no offsets left");
        lines.put(new GroupStateChanged("billing", "Stable", "PreparingRebalance", 3, "m-1", List.of("m-1", "m-2")),
                "GroupStateChanged  group=billing Stable->PreparingRebalance generation=3 leader=m-1 members=[m-1, m-2]");
        lines.put(new GroupStateChanged("billing", "Empty", "PreparingRebalance", 0, null, List.of()),
                "GroupStateChanged  group=billing Empty->PreparingRebalance generation=0 leader=null members=[]");
        lines.put(new RebalanceStarted("billing", 3, "adding member m-3; client reason: need to re-join"),
                "RebalanceStarted  group=billing generation=3 reason: adding member m-3; client reason: need to re-join");
        lines.put(new GenerationStarted("billing", 4, "range", "m-1", List.of("m-1(instance-1)", "m-2")),
                "GenerationStarted  group=billing generation=4 protocol=range leader=m-1 members=[m-1(instance-1), m-2]");
        lines.put(new AssignmentDistributed("billing", 4, Map.of("m-2", List.of(), "m-1(instance-1)", List.of("orders-0", "orders-1"))),
                "AssignmentDistributed  group=billing generation=4 assignment={m-1(instance-1)=[orders-0, orders-1], m-2=[]}");
        lines.put(new MemberJoined("billing", "m-1", null, "consumer-1"), "MemberJoined  group=billing member=m-1 client=consumer-1");
        lines.put(new MemberJoined("billing", "m-1", "instance-1", "consumer-1"),
                "MemberJoined  group=billing member=m-1(instance-1) client=consumer-1");
        lines.put(new MemberRemoved("billing", "m-2", "instance-2", "session timeout expired"),
                "MemberRemoved  group=billing member=m-2(instance-2) reason: session timeout expired");
        lines.put(new MemberDisconnected("billing", "m-2", null, "127.0.0.1:9092-127.0.0.1:50000-0"),
                "MemberDisconnected  group=billing member=m-2 connection=127.0.0.1:9092-127.0.0.1:50000-0");
        lines.put(new SessionRearmed("billing", "m-1", null, 120, 3000),
                "SessionRearmed  group=billing member=m-1 heard 120 ms ago in wall time, heartbeat interval ~3000 ms");
        lines.put(new StaticMemberReplaced("billing", "instance-1", "m-1", "m-9"),
                "StaticMemberReplaced  group=billing instance=instance-1 m-1->m-9");
        lines.put(new CoordinatorLoaded(3, 2, List.of(new CoordinatorLoaded.LoadedGroup("billing", "Stable", 4, 2)), 17, 0),
                "CoordinatorLoaded  __consumer_offsets-3 on broker 2 groups=[billing(Stable generation=4 members=2)] records=17");
        lines.put(new CoordinatorLoaded(3, 2, List.of(), 5, 1),
                "CoordinatorLoaded  __consumer_offsets-3 on broker 2 groups=[] records=5 skipped=1");
        lines.put(new CoordinatorUnloaded(3, 1), "CoordinatorUnloaded  __consumer_offsets-3 from broker 1");
        lines.put(new CoordinatorRecordSkipped(3, 12, 2, new IllegalStateException("bad key").toString()),
                "CoordinatorRecordSkipped  __consumer_offsets-3 offset=12 on broker 2: java.lang.IllegalStateException: bad key");
        lines.put(new OffsetsExpiryFailed(3, new IllegalStateException("not the coordinator").toString()),
                "OffsetsExpiryFailed  __consumer_offsets-3: java.lang.IllegalStateException: not the coordinator");
        lines.put(new OffsetsExpired("billing", List.of("orders-0", "orders-1")),
                "OffsetsExpired  group=billing partitions=[orders-0, orders-1]");

        lines.put(new TxnStateChanged("tx-1", "Ongoing", "PrepareCommit", 7, (short) 2, List.of("orders-0", "orders-1")),
                "TxnStateChanged  transactionalId=tx-1 Ongoing->PrepareCommit producerId=7 epoch=2 partitions=[orders-0, orders-1]");
        lines.put(new TxnMarkerWritten("tx-1", "orders", 1, 7, (short) 2, true, 42, 3, 5),
                "TxnMarkerWritten  orders-1 COMMIT transactionalId=tx-1 producerId=7 epoch=2 offset=42 leader=3 coordinatorEpoch=5");
        return lines;
    }

    @Test
    void everyEventPrintsAsTheTimelinePrintedIt() {
        SoftAssertions softly = new SoftAssertions();
        samples().forEach((event, line) -> softly.assertThat(new TimedEvent(AT, event).toString()).as(event.getClass().getSimpleName())
                .isEqualTo("2026-01-01T00:00:00Z  " + line));
        softly.assertAll();
    }

    @Test
    void everyKindOfEventHasASample() {
        List<Class<?>> sampled = samples().keySet().stream().<Class<?>>map(Object::getClass).distinct().toList();
        assertThat(sampled).containsExactlyInAnyOrder(ClusterEvent.class.getPermittedSubclasses());
    }

    @Test
    void anEventKeepsTheListsItWasGivenAsTheyWereThen() {
        // The controller goes on changing the ISR list it recorded; the event must still say what the ISR was.
        List<Integer> isr = new ArrayList<>(Arrays.asList(1, 2));
        IsrExpanded expanded = new IsrExpanded("orders", 0, isr, 2);
        isr.remove(Integer.valueOf(2));

        assertThat(expanded.isr()).containsExactly(1, 2);
        assertThat(expanded.details()).isEqualTo("orders-0 isr=[1, 2] added=2");
    }
}
