package dev.samsa.group;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.coordinator.CoordinatorFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Offsets committed in a transaction (TxnOffsetCommit) on the domain alone: pending until the transaction's marker
 * lands in the group's {@code __consumer_offsets} partition, then committed (COMMIT) or gone (ABORT), and the same
 * after the partition's leader changes and the new one replays the log. Three brokers, one offsets partition with
 * replication factor 3; markers are appended as the transaction coordinator appends them.
 */
class TransactionalOffsetsTest {

    private static final String GROUP = "billing";
    private static final TopicPartition ORDERS = new TopicPartition("orders", 0);
    private static final TopicPartition OFFSETS = new TopicPartition(GroupCoordinator.OFFSETS_TOPIC, 0);
    private static final long PRODUCER = 4000L;
    private static final short EPOCH = 0;

    @TempDir
    Path dir;
    private CoordinatorFixture cluster;
    private GroupCoordinator coordinator;

    @BeforeEach
    void start() {
        cluster = new CoordinatorFixture(dir, 3, Map.of("offsets.topic.num.partitions", "1",
                "offsets.topic.replication.factor", "3", "offsets.retention.minutes", "1",
                "offsets.retention.check.interval.ms", "1000"));
        coordinator = cluster.call(() -> new GroupCoordinator(cluster.state));
        cluster.call(() -> coordinator.findCoordinator(1, GROUP));
    }

    @AfterEach
    void close() {
        cluster.close();
    }

    private int leader() {
        return cluster.call(() -> cluster.state.metadata().partition(OFFSETS).leader());
    }

    /** A TxnOffsetCommit of a simple consumer (no generation) in PRODUCER's transaction, answered once replicated. */
    private Errors commitInTransaction(long producerId, Map<TopicPartition, Long> offsets) {
        AtomicReference<Errors> answer = new AtomicReference<>();
        cluster.run(() -> {
            Map<TopicPartition, CommittedOffset> commits = new LinkedHashMap<>();
            offsets.forEach((tp, o) -> commits.put(tp, new CommittedOffset(o, -1, "", cluster.state.nowMs())));
            coordinator.offsets().commitTransactional(leader(), (short) 5, producerId, EPOCH, GROUP,
                    "", null, -1, commits, answer::set);
        });
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> answer.get() != null);
        return answer.get();
    }

    private void commit(Map<TopicPartition, Long> offsets) {
        AtomicReference<Errors> answer = new AtomicReference<>();
        cluster.run(() -> {
            Map<TopicPartition, CommittedOffset> commits = new LinkedHashMap<>();
            offsets.forEach((tp, o) -> commits.put(tp, new CommittedOffset(o, -1, "", cluster.state.nowMs())));
            coordinator.offsets().commit(leader(), (short) 9, GROUP, "", null, -1, commits, "admin", answer::set);
        });
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> answer.get() != null);
        assertThat(answer.get()).isEqualTo(Errors.NONE);
    }

    /**
     * The marker the transaction coordinator writes to the offsets partition's leader when the transaction ends,
     * waited for until replicated, as the transaction coordinator waits.
     */
    private void marker(long producerId, boolean committed) {
        int leader = leader();
        long end = cluster.call(() -> cluster.state.replicaManager().appendTxnMarker(leader, OFFSETS, producerId, EPOCH, 0,
                committed).lastOffset() + 1);
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                cluster.call(() -> cluster.state.replicaManager().acksAllOutcome(leader, OFFSETS, end)) == Errors.NONE);
    }

    private Map<TopicPartition, Long> committed() {
        return cluster.call(() -> {
            Map<TopicPartition, Long> all = new LinkedHashMap<>();
            coordinator.committed(GROUP).forEach((tp, o) -> all.put(tp, o.offset()));
            return all;
        });
    }

    private OffsetStore.Fetched fetch(boolean requireStable) {
        return cluster.call(() -> coordinator.offsets().fetch(leader(), GROUP, List.of(ORDERS), requireStable));
    }

    /** The leader shuts down and hands the offsets partition to another broker, which loads it by replaying its replica. */
    private void moveCoordinator() {
        int before = leader();
        cluster.shutDown(before);
        assertThat(leader()).as("the new leader of %s", OFFSETS).isNotEqualTo(before).isPositive();
    }

    @Test
    void pendingOffsetsAreNotCommittedUntilTheCommitMarkerLands() {
        commit(Map.of(ORDERS, 5L));

        assertThat(commitInTransaction(PRODUCER, Map.of(ORDERS, 10L))).isEqualTo(Errors.NONE);

        assertThat(committed()).as("committed while the transaction is open").containsExactly(Map.entry(ORDERS, 5L));
        assertThat(fetch(false).offsets().get(ORDERS).offset()).as("OffsetFetch without requireStable").isEqualTo(5L);
        assertThat(fetch(true).unstable()).as("OffsetFetch with requireStable").containsExactly(ORDERS);
        assertThat(fetch(true).offsets()).isEmpty();
        assertThat(cluster.call(() -> coordinator.pendingTransactionalOffsets(GROUP))).containsExactly(ORDERS);

        marker(PRODUCER, true);

        assertThat(committed()).containsExactly(Map.entry(ORDERS, 10L));
        assertThat(fetch(true).unstable()).isEmpty();
        assertThat(fetch(true).offsets().get(ORDERS).offset()).isEqualTo(10L);
        assertThat(cluster.call(() -> coordinator.pendingTransactionalOffsets(GROUP))).isEmpty();
    }

    @Test
    void anAbortMarkerDropsThePendingOffsets() {
        commit(Map.of(ORDERS, 5L));
        commitInTransaction(PRODUCER, Map.of(ORDERS, 10L));

        marker(PRODUCER, false);

        assertThat(committed()).containsExactly(Map.entry(ORDERS, 5L));
        assertThat(fetch(true).unstable()).isEmpty();
        assertThat(fetch(true).offsets().get(ORDERS).offset()).isEqualTo(5L);
    }

    @Test
    void aMarkerOfAnotherProducerLeavesTheOffsetsPending() {
        commitInTransaction(PRODUCER, Map.of(ORDERS, 10L));

        marker(PRODUCER + 1, true);

        assertThat(committed()).isEmpty();
        assertThat(fetch(true).unstable()).containsExactly(ORDERS);
    }

    @Test
    void aNewCoordinatorReplaysTheSameStateAtEachStep() {
        commit(Map.of(ORDERS, 5L));
        commitInTransaction(PRODUCER, Map.of(ORDERS, 10L));

        moveCoordinator();

        assertThat(committed()).as("after the move, the transaction still open").containsExactly(Map.entry(ORDERS, 5L));
        assertThat(fetch(true).unstable()).as("still pending after the move").containsExactly(ORDERS);

        marker(PRODUCER, true);
        assertThat(committed()).as("the new coordinator hears the marker").containsExactly(Map.entry(ORDERS, 10L));

        commitInTransaction(PRODUCER, Map.of(ORDERS, 20L));
        marker(PRODUCER, false);
        moveCoordinator();

        assertThat(committed()).as("replayed: the commit applied, the abort dropped").containsExactly(Map.entry(ORDERS, 10L));
        assertThat(fetch(true).unstable()).isEmpty();
    }

    @Test
    void aLaterPlainCommitWinsOverAnEarlierTransactionalOne() {
        commitInTransaction(PRODUCER, Map.of(ORDERS, 10L));
        commit(Map.of(ORDERS, 15L));

        marker(PRODUCER, true);

        assertThat(committed()).as("the record further in the log wins, as Kafka").containsExactly(Map.entry(ORDERS, 15L));
        moveCoordinator();
        assertThat(committed()).as("and so after a replay").containsExactly(Map.entry(ORDERS, 15L));
    }

    @Test
    void deletingTheGroupTombstonesItsPendingOffsetsSoTheCommitMarkerFindsNone() {
        commitInTransaction(PRODUCER, Map.of(ORDERS, 10L));

        cluster.run(() -> coordinator.deleteGroup(leader(), GROUP));
        marker(PRODUCER, true);

        assertThat(committed()).isEmpty();
        assertThat(cluster.call(() -> coordinator.pendingTransactionalOffsets(GROUP))).isEmpty();
        moveCoordinator();
        assertThat(committed()).as("replayed: pending record, tombstone, marker").isEmpty();
        assertThat(cluster.call(() -> coordinator.groupOrNull(GROUP))).isNull();
    }

    @Test
    void anOffsetAnOpenTransactionHoldsDoesNotExpire() {
        TopicPartition other = new TopicPartition("orders", 1);
        commit(Map.of(ORDERS, 5L, other, 7L));
        commitInTransaction(PRODUCER, Map.of(ORDERS, 10L));

        // Past offsets.retention.minutes (1) of the simple group's commits, and past a check.
        cluster.state.loop().clock().advance(Duration.ofMinutes(2));

        assertThat(committed()).as("as Kafka's cleanupExpiredOffsets: only the offset no transaction holds expires")
                .containsExactly(Map.entry(ORDERS, 5L));
        assertThat(cluster.call(() -> coordinator.groupOrNull(GROUP))).as("a group with an open transaction stays").isNotNull();
        marker(PRODUCER, true);
        assertThat(committed()).containsExactly(Map.entry(ORDERS, 10L));
    }

    @Test
    void aGenerationForAGroupThatDoesNotExistIsIllegal() {
        AtomicReference<Errors> answer = new AtomicReference<>();
        cluster.run(() -> coordinator.offsets().commitTransactional(leader(), (short) 5, PRODUCER, EPOCH, GROUP,
                "member-1", null, 3, Map.of(ORDERS, new CommittedOffset(1, -1, "", 0)), answer::set));

        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> answer.get() != null);
        assertThat(answer.get()).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(fetch(true).unstable()).as("nothing written").isEmpty();
    }

    @Test
    void aMemberTheGroupDoesNotKnowIsRefused() {
        commitInTransaction(PRODUCER, Map.of(ORDERS, 1L)); // creates the simple group, Empty
        AtomicReference<Errors> answer = new AtomicReference<>();
        cluster.run(() -> coordinator.offsets().commitTransactional(leader(), (short) 5, PRODUCER, EPOCH, GROUP,
                "member-1", null, 0, Map.of(ORDERS, new CommittedOffset(2, -1, "", 0)), answer::set));

        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> answer.get() != null);
        assertThat(answer.get()).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void oneProducerCommitsManyTimesInAndAcrossTransactions() {
        TopicPartition other = new TopicPartition("orders", 1);
        assertThat(commitInTransaction(PRODUCER, Map.of(ORDERS, 1L))).isEqualTo(Errors.NONE);
        assertThat(commitInTransaction(PRODUCER, Map.of(ORDERS, 2L, other, 7L))).isEqualTo(Errors.NONE);
        marker(PRODUCER, true);
        assertThat(commitInTransaction(PRODUCER, Map.of(ORDERS, 3L))).as("the next transaction of the same producer")
                .isEqualTo(Errors.NONE);
        marker(PRODUCER, true);

        assertThat(committed()).containsEntry(ORDERS, 3L).containsEntry(other, 7L);
        moveCoordinator();
        assertThat(committed()).containsEntry(ORDERS, 3L).containsEntry(other, 7L);
        assertThat(commitInTransaction(PRODUCER, Map.of(ORDERS, 4L))).as("the new coordinator continues the producer's sequence")
                .isEqualTo(Errors.NONE);
    }
}
