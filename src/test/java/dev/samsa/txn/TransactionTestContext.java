package dev.samsa.txn;

import dev.samsa.coordinator.CoordinatorResult;
import dev.samsa.coordinator.CoordinatorRuntime;
import dev.samsa.event.Timeline;
import dev.samsa.time.MockScheduler;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * The transaction coordinator without a cluster, a thread or a file, as the classic protocol's
 * {@code ClassicGroupTestContext}: one shard of {@code __transaction_state} led by broker 1, whose writes are replayed
 * and "replicated" at once, markers that every partition leader takes at once, and a {@link MockScheduler} that moves
 * only when the test advances it.
 */
final class TransactionTestContext implements TransactionCoordinatorContext {

    static final int BROKER = 1;

    final MockScheduler scheduler = MockScheduler.manual();
    final Timeline timeline = new Timeline(scheduler::nowMs, scheduler::wallMs);
    final TransactionCoordinator coordinator;
    /** Each marker written, as "ABORT orders-0 producerId/epoch". */
    final List<String> markers = new ArrayList<>();
    private final short transactionVersion;
    private final TransactionCoordinatorShard shard;
    private long producerIds = 1_000;
    private long nextOffset;

    TransactionTestContext(short transactionVersion) {
        this.transactionVersion = transactionVersion;
        this.coordinator = new TransactionCoordinator(this);
        this.shard = coordinator.newShard(0, BROKER, 0);
        shard.onLoaded(0, 0);
        coordinator.onLoaded(shard);
    }

    // ---- requests, answered at once since every write is

    TransactionCoordinator.InitResult init(String transactionalId, int timeoutMs) {
        AtomicReference<TransactionCoordinator.InitResult> answer = new AtomicReference<>();
        coordinator.initProducerId(BROKER, transactionalId, timeoutMs, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH,
                answer::set);
        return answer.get();
    }

    Errors add(String transactionalId, TransactionCoordinator.InitResult producer, TopicPartition tp) {
        AtomicReference<Errors> answer = new AtomicReference<>();
        coordinator.addPartitions(BROKER, transactionalId, producer.producerId(), producer.producerEpoch(), Set.of(tp),
                transactionVersion, answer::set);
        return answer.get();
    }

    Errors end(String transactionalId, TransactionCoordinator.InitResult producer, boolean commit) {
        AtomicReference<TransactionCoordinator.EndResult> answer = new AtomicReference<>();
        coordinator.endTransaction(BROKER, transactionalId, producer.producerId(), producer.producerEpoch(), commit,
                transactionVersion, answer::set);
        return answer.get().error();
    }

    // ---- the context

    @Override
    public MockScheduler scheduler() {
        return scheduler;
    }

    @Override
    public Timeline timeline() {
        return timeline;
    }

    @Override
    public long nextProducerId() {
        return producerIds++;
    }

    @Override
    public short transactionVersion() {
        return transactionVersion;
    }

    @Override
    public TransactionConfig config(int brokerId) {
        return new TransactionConfig(900_000, 10_000, 604_800_000);
    }

    @Override
    public int findCoordinator(int brokerId, String transactionalId) {
        return BROKER;
    }

    @Override
    public TransactionCoordinatorShard activeShard(int brokerId, String transactionalId) {
        if (brokerId != BROKER) {
            throw new NotCoordinatorException("Broker " + BROKER + " is the coordinator of " + transactionalId);
        }
        return shard;
    }

    @Override
    public TransactionCoordinatorShard shardOrNull(String transactionalId) {
        return shard;
    }

    @Override
    public Collection<TransactionCoordinatorShard> shards() {
        return List.of(shard);
    }

    @Override
    public boolean isLoaded(TransactionCoordinatorShard s) {
        return s == shard;
    }

    @Override
    public <T> void write(TransactionCoordinatorShard s, CoordinatorRuntime.WriteOperation<TransactionCoordinatorShard, T> op,
                          BiConsumer<T, Errors> respond) {
        CoordinatorResult<T> result = op.generate(s);
        if (!result.records().isEmpty()) {
            for (Record r : MemoryRecords.withRecords(Compression.NONE, result.records().toArray(new SimpleRecord[0])).records()) {
                s.replay(nextOffset++, r);
            }
        }
        respond.accept(result.response(), Errors.NONE);
        if (result.onCommitted() != null) {
            result.onCommitted().run();
        }
    }

    @Override
    public boolean stateReplicated(String transactionalId, String state, int coordinator) {
        return false;
    }

    @Override
    public int leaderOf(TopicPartition tp) {
        return BROKER;
    }

    @Override
    public boolean holdMarker(TopicPartition tp, int leader, Runnable send) {
        return false;
    }

    @Override
    public void writeMarker(int leader, TopicPartition tp, long producerId, short producerEpoch, int coordinatorEpoch,
                            boolean committed, BiConsumer<Long, Errors> done) {
        markers.add((committed ? "COMMIT " : "ABORT ") + tp + " " + producerId + "/" + producerEpoch);
        done.accept((long) markers.size() - 1, Errors.NONE);
    }
}
