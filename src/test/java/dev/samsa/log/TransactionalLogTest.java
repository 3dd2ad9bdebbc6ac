package dev.samsa.log;

import static dev.samsa.log.LogTestSupport.NOW;
import static dev.samsa.log.LogTestSupport.batch;
import static dev.samsa.log.LogTestSupport.idempotent;
import static dev.samsa.log.LogTestSupport.transactional;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.samsa.log.store.MappedStores;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.TransactionCoordinatorFencedException;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Transaction markers, the last stable offset and the aborted-transaction index of one log. */
class TransactionalLogTest {

    private static final long PID = 4000L;
    private static final long OTHER = 4001L;
    private static final short EPOCH = 2;

    @TempDir
    Path tmp;

    private PartitionLog log;

    @BeforeEach
    void openLog() throws IOException {
        log = open();
    }

    @AfterEach
    void closeLog() {
        log.close();
    }

    private PartitionLog open() throws IOException {
        return PartitionLog.open(tmp.resolve("payments-0"), LogConfigs.defaults(), MappedStores.detect(), NOW);
    }

    private static List<MutableRecordBatch> batches(PartitionLog log) {
        List<MutableRecordBatch> out = new ArrayList<>();
        log.forEachBatch(out::add);
        return out;
    }

    @Test
    void shouldAppendAMarkerAsAControlBatchStampedWithTheLeaderEpoch() {
        log.appendAsLeader(transactional(PID, EPOCH, 0, "a", "b"), 3, NOW);

        LogAppendInfo info = log.appendTxnMarkerAsLeader(PID, EPOCH, 7, true, 3, NOW + 5);

        assertThat(info.firstOffset()).isEqualTo(2);
        assertThat(info.lastOffset()).isEqualTo(2);
        MutableRecordBatch marker = batches(log).get(1);
        assertThat(marker.isControlBatch()).isTrue();
        assertThat(marker.isTransactional()).isTrue();
        assertThat(marker.baseOffset()).isEqualTo(2);
        assertThat(marker.partitionLeaderEpoch()).isEqualTo(3);
        assertThat(marker.producerId()).isEqualTo(PID);
        assertThat(marker.producerEpoch()).isEqualTo(EPOCH);
        EndTransactionMarker decoded = EndTransactionMarker.deserialize(marker.iterator().next());
        assertThat(decoded.controlType()).isEqualTo(ControlRecordType.COMMIT);
        assertThat(decoded.coordinatorEpoch()).isEqualTo(7);
        assertThat(log.logEndOffset()).isEqualTo(3);
    }

    @Test
    void shouldStillRejectControlBatchesFromClients() {
        MemoryRecords marker = MemoryRecords.withEndTransactionMarker(0, NOW, 0, PID, EPOCH,
                new EndTransactionMarker(ControlRecordType.ABORT, 0));

        assertThatThrownBy(() -> log.appendAsLeader(marker, 0, NOW)).isInstanceOf(InvalidRecordException.class);
    }

    @Test
    void shouldFenceAnOlderProducerEpochAndAnOlderCoordinatorEpoch() {
        log.appendAsLeader(transactional(PID, EPOCH, 0, "a"), 0, NOW);
        log.appendTxnMarkerAsLeader(PID, EPOCH, 5, false, 0, NOW);

        assertThatThrownBy(() -> log.appendTxnMarkerAsLeader(PID, (short) (EPOCH - 1), 5, true, 0, NOW))
                .isInstanceOf(InvalidProducerEpochException.class);
        assertThatThrownBy(() -> log.appendTxnMarkerAsLeader(PID, EPOCH, 4, true, 0, NOW))
                .isInstanceOf(TransactionCoordinatorFencedException.class);
        assertThat(log.logEndOffset()).as("nothing appended").isEqualTo(2);
        assertThat(log.appendTxnMarkerAsLeader(PID, (short) (EPOCH + 1), 6, true, 0, NOW).firstOffset())
                .as("a bumped epoch (transactions v2) and a newer coordinator are fine").isEqualTo(2);
    }

    @Test
    void shouldHoldTheLastStableOffsetAtTheOldestOpenTransactionUntilItsMarkerIsReplicated() {
        log.appendAsLeader(batch("plain"), 0, NOW);
        log.appendAsLeader(transactional(PID, EPOCH, 0, "p1"), 0, NOW);
        log.appendAsLeader(transactional(OTHER, EPOCH, 0, "o1"), 0, NOW);
        log.appendAsLeader(transactional(PID, EPOCH, 1, "p2"), 0, NOW);
        assertThat(log.lastStableOffset(4)).isEqualTo(1);
        assertThat(log.lastStableOffset(1)).as("never above the high watermark").isEqualTo(1);
        assertThat(log.lastStableOffset(0)).isEqualTo(0);

        log.appendTxnMarkerAsLeader(PID, EPOCH, 0, true, 0, NOW);
        assertThat(log.lastStableOffset(4)).as("the commit marker at 4 is not replicated yet").isEqualTo(1);
        assertThat(log.lastStableOffset(5)).as("then the other producer's transaction").isEqualTo(2);

        log.appendTxnMarkerAsLeader(OTHER, EPOCH, 0, false, 0, NOW);
        assertThat(log.lastStableOffset(6)).isEqualTo(6);
    }

    @Test
    void shouldRejectANonTransactionalBatchWhileTheProducerHasATransactionOpen() {
        log.appendAsLeader(transactional(PID, EPOCH, 0, "a"), 0, NOW);

        assertThatThrownBy(() -> log.appendAsLeader(idempotent(PID, EPOCH, 1, "b"), 0, NOW))
                .isInstanceOf(InvalidTxnStateException.class);
    }

    @Test
    void shouldIndexAnAbortedTransactionWithTheLastStableOffsetAfterIt() {
        log.appendAsLeader(transactional(PID, EPOCH, 0, "p1"), 0, NOW);
        log.appendAsLeader(transactional(OTHER, EPOCH, 0, "o1"), 0, NOW);
        log.appendAsLeader(transactional(PID, EPOCH, 1, "p2"), 0, NOW);
        log.appendTxnMarkerAsLeader(PID, EPOCH, 0, false, 0, NOW);
        log.appendTxnMarkerAsLeader(OTHER, EPOCH, 0, true, 0, NOW);
        log.appendAsLeader(transactional(OTHER, EPOCH, 1, "o2"), 0, NOW);
        log.appendTxnMarkerAsLeader(OTHER, EPOCH, 0, false, 0, NOW);

        assertThat(log.abortedTxnsBySegment()).containsExactly(List.of(
                new AbortedTxn(PID, 0, 3, 1),
                new AbortedTxn(OTHER, 5, 6, 7)));
        assertThat(log.collectAbortedTransactions(0, 7)).extracting(AbortedTxn::producerId).containsExactly(PID, OTHER);
        assertThat(log.collectAbortedTransactions(4, 7)).extracting(AbortedTxn::producerId).containsExactly(OTHER);
        assertThat(log.collectAbortedTransactions(0, 1)).extracting(AbortedTxn::producerId).containsExactly(PID);
    }

    @Test
    void shouldRebuildOpenTransactionsAndTheIndexOnReopen() throws IOException {
        log.appendAsLeader(transactional(PID, EPOCH, 0, "p1"), 0, NOW);
        log.appendTxnMarkerAsLeader(PID, EPOCH, 9, false, 0, NOW);
        log.appendAsLeader(transactional(OTHER, EPOCH, 0, "o1"), 0, NOW);
        List<List<AbortedTxn>> index = log.abortedTxnsBySegment();
        log.close();

        log = open();

        assertThat(log.abortedTxnsBySegment()).isEqualTo(index).isNotEqualTo(List.of(List.of()));
        assertThat(log.lastStableOffset(3)).as("the open transaction of OTHER").isEqualTo(2);
        assertThatThrownBy(() -> log.appendTxnMarkerAsLeader(PID, EPOCH, 8, true, 0, NOW))
                .as("the coordinator epoch of the last marker survives")
                .isInstanceOf(TransactionCoordinatorFencedException.class);
        assertThat(log.activeProducers()).containsExactly(
                new ProducerState(PID, EPOCH, 0, NOW, 9, -1),
                new ProducerState(OTHER, EPOCH, 0, NOW, -1, 2));
    }

    @Test
    void shouldForgetTheMarkerAndItsIndexEntryOnTruncation() {
        log.appendAsLeader(transactional(PID, EPOCH, 0, "p1"), 0, NOW);
        log.appendTxnMarkerAsLeader(PID, EPOCH, 0, false, 0, NOW);
        log.appendAsLeader(transactional(OTHER, EPOCH, 0, "o1"), 0, NOW);
        log.appendTxnMarkerAsLeader(OTHER, EPOCH, 0, false, 0, NOW);

        log.truncateTo(3);

        assertThat(log.abortedTxnsBySegment()).containsExactly(List.of(new AbortedTxn(PID, 0, 1, 2)));
        assertThat(log.lastStableOffset(3)).as("OTHER's transaction is open again").isEqualTo(2);
    }

    @Test
    void shouldWriteTheIndexFileInKafkasLayoutAndOnlyForASegmentWithAnAbortedTransaction() throws IOException {
        Path dir = tmp.resolve("payments-0");
        log.appendAsLeader(transactional(PID, EPOCH, 0, "p1", "p2"), 0, NOW);
        log.appendTxnMarkerAsLeader(PID, EPOCH, 0, true, 0, NOW);
        assertThat(LogFileUtils.transactionIndexFile(dir, 0)).as("a commit is not indexed").doesNotExist();

        log.appendAsLeader(transactional(PID, EPOCH, 2, "p3"), 0, NOW);
        log.appendTxnMarkerAsLeader(PID, EPOCH, 0, false, 0, NOW);

        ByteBuffer entry = ByteBuffer.wrap(Files.readAllBytes(LogFileUtils.transactionIndexFile(dir, 0)), 0,
                TransactionIndex.ENTRY_SIZE);
        assertThat(entry.getShort()).as("version").isZero();
        assertThat(entry.getLong()).as("producer id").isEqualTo(PID);
        assertThat(entry.getLong()).as("first offset").isEqualTo(3);
        assertThat(entry.getLong()).as("last offset").isEqualTo(4);
        assertThat(entry.getLong()).as("last stable offset").isEqualTo(5);
    }

    @Test
    void shouldIndexTheAbortInTheSegmentOfItsMarkerAndDeleteTheIndexWithTheSegment() throws IOException {
        log.updateConfig(LogConfigs.defaults().withSegmentBytes(transactional(PID, EPOCH, 0, "p1").sizeInBytes() + 10));
        log.appendAsLeader(transactional(PID, EPOCH, 0, "p1"), 0, NOW);
        log.appendTxnMarkerAsLeader(PID, EPOCH, 0, false, 0, NOW);
        log.appendAsLeader(batch("after"), 0, NOW);

        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 1L, 2L);
        assertThat(log.abortedTxnsBySegment()).containsExactly(List.of(), List.of(new AbortedTxn(PID, 0, 1, 2)), List.of());
        assertThat(log.collectAbortedTransactions(0, 1)).as("from the segment of the fetch offset on")
                .containsExactly(new AbortedTxn(PID, 0, 1, 2));
        Path index = LogFileUtils.transactionIndexFile(tmp.resolve("payments-0"), 1);
        assertThat(index).exists();

        log.deleteRecordsBefore(2);

        assertThat(index).doesNotExist();
    }

    @Test
    void shouldReopenAnAbortedTransactionWhoseMarkerALossOfPowerTookAway() throws IOException {
        log.appendAsLeader(transactional(PID, EPOCH, 0, "p1"), 0, NOW);
        log.flush(NOW);
        log.appendTxnMarkerAsLeader(PID, EPOCH, 0, false, 0, NOW);
        assertThat(log.abortedTxnsBySegment()).containsExactly(List.of(new AbortedTxn(PID, 0, 1, 2)));

        log.closeWithPowerLoss(0);
        log = open();

        assertThat(log.logEndOffset()).isEqualTo(1);
        assertThat(log.abortedTxnsBySegment()).containsExactly(List.of());
        assertThat(LogFileUtils.transactionIndexFile(tmp.resolve("payments-0"), 0)).doesNotExist();
        assertThat(log.lastStableOffset(1)).as("the transaction is open again").isZero();
        assertThat(log.activeProducers()).extracting(ProducerState::currentTxnStartOffset).containsExactly(0L);
    }

    @Test
    void shouldGiveAFollowerTheLeadersProducerStateAndIndex() throws IOException {
        log.appendAsLeader(transactional(PID, EPOCH, 0, "p1"), 0, NOW);
        log.appendAsLeader(transactional(OTHER, EPOCH, 0, "o1"), 0, NOW);
        log.appendTxnMarkerAsLeader(PID, EPOCH, 3, false, 0, NOW);
        log.appendAsLeader(idempotent(5000L, (short) 0, 0, "i"), 0, NOW);

        try (PartitionLog follower = PartitionLog.open(tmp.resolve("follower-0"), LogConfigs.defaults(),
                MappedStores.detect(), NOW)) {
            follower.appendAsFollower(log.read(0, Integer.MAX_VALUE, Long.MAX_VALUE, true).records(), NOW);

            assertThat(follower.activeProducers()).isEqualTo(log.activeProducers());
            assertThat(follower.abortedTxnsBySegment()).isEqualTo(log.abortedTxnsBySegment());
            assertThat(follower.lastStableOffset(4)).isEqualTo(log.lastStableOffset(4)).isEqualTo(1);
        }
    }

    @Test
    void shouldExpireIdleProducersButNotOnesInATransaction() {
        log.appendAsLeader(idempotent(PID, EPOCH, 0, "a"), 0, NOW);
        log.appendAsLeader(transactional(OTHER, EPOCH, 0, "o"), 0, NOW);

        log.removeExpiredProducers(NOW + 999, 1000);
        assertThat(log.activeProducers()).hasSize(2);
        log.removeExpiredProducers(NOW + 1000, 1000);

        assertThat(log.activeProducers()).extracting(ProducerState::producerId).containsExactly(OTHER);
        assertThat(log.appendAsLeader(idempotent(PID, EPOCH, 0, "a"), 0, NOW).duplicate())
                .as("an expired producer's retry is new").isFalse();
    }
}
