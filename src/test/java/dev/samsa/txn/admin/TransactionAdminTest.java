package dev.samsa.txn.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.Api;
import dev.samsa.KafkaCluster;
import dev.samsa.KafkaError;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidRegularExpression;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TransactionalIdNotFoundException;
import org.junit.jupiter.api.Test;

/**
 * The transaction admin APIs through the real Admin client on three brokers: describeTransactions,
 * listTransactions (which asks every broker and merges), describeProducers, abortTransaction (WriteTxnMarkers to the
 * partition's leader) and fenceProducers (InitProducerId at the coordinator).
 */
class TransactionAdminTest {

    private static final String TOPIC = "orders";

    private static KafkaCluster cluster() {
        return KafkaCluster.builder().brokers(3).topic(TOPIC, 2, 3).start();
    }

    static KafkaProducer<String, String> producer(KafkaCluster cluster, String transactionalId) {
        Map<String, Object> config = cluster.producerConfig();
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        // Long enough that no test here sees the coordinator abort on its own.
        config.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 600_000);
        return new KafkaProducer<>(config);
    }

    @Test
    void describeTransactionsShowsTheOngoingTransactionThenItsCommit() throws Exception {
        try (KafkaCluster cluster = cluster(); Admin admin = Admin.create(cluster.adminConfig());
                KafkaProducer<String, String> producer = producer(cluster, "orders-tx")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 1, "k", "v")).get();

            TransactionDescription ongoing = admin.describeTransactions(List.of("orders-tx")).description("orders-tx").get();
            assertThat(ongoing.state()).as("%s", ongoing).isEqualTo(TransactionState.ONGOING);
            assertThat(ongoing.topicPartitions()).as("%s", ongoing).containsExactly(new TopicPartition(TOPIC, 1));
            assertThat(ongoing.producerEpoch()).as("%s", ongoing).isEqualTo((short) 0);
            assertThat(ongoing.transactionTimeoutMs()).as("%s", ongoing).isEqualTo(600_000);
            assertThat(ongoing.transactionStartTimeMs()).as("%s", ongoing).isPresent();
            assertThat(ongoing.coordinatorId()).as("%s", ongoing).isIn(cluster.brokers().stream().map(b -> b.id()).toList());

            producer.commitTransaction();
            await().atMost(10, TimeUnit.SECONDS).untilAsserted(() -> {
                TransactionDescription done = admin.describeTransactions(List.of("orders-tx")).description("orders-tx").get();
                assertThat(done.state()).as("%s", done).isEqualTo(TransactionState.COMPLETE_COMMIT);
                assertThat(done.topicPartitions()).as("a completed transaction owes no marker: %s", done).isEmpty();
                assertThat(done.producerId()).isEqualTo(ongoing.producerId());
            });
        }
    }

    @Test
    void describingAnUnknownTransactionalIdFailsWithTransactionalIdNotFound() {
        try (KafkaCluster cluster = cluster(); Admin admin = Admin.create(cluster.adminConfig())) {
            assertThatThrownBy(() -> admin.describeTransactions(List.of("nobody")).description("nobody").get())
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TransactionalIdNotFoundException.class);
        }
    }

    @Test
    void listTransactionsMergesEveryCoordinatorAndFiltersByStateProducerIdAndPattern() throws Exception {
        try (KafkaCluster cluster = cluster(); Admin admin = Admin.create(cluster.adminConfig())) {
            List<String> ids = List.of("list-a", "list-b", "list-c", "other-d");
            List<KafkaProducer<String, String>> producers = ids.stream().map(id -> producer(cluster, id)).toList();
            try {
                producers.forEach(KafkaProducer::initTransactions);
                // list-a and other-d stay open; list-b commits; list-c is only initialised.
                for (int i : new int[] {0, 1, 3}) {
                    producers.get(i).beginTransaction();
                    producers.get(i).send(new ProducerRecord<>(TOPIC, 0, "k", "v")).get();
                }
                producers.get(1).commitTransaction();

                await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
                        assertThat(states(admin.listTransactions().all().get())).isEqualTo(Map.of(
                                "list-a", TransactionState.ONGOING, "list-b", TransactionState.COMPLETE_COMMIT,
                                "list-c", TransactionState.EMPTY, "other-d", TransactionState.ONGOING)));
                assertThat(states(admin.listTransactions(new ListTransactionsOptions()
                        .filterStates(Set.of(TransactionState.ONGOING))).all().get()).keySet())
                        .containsExactlyInAnyOrder("list-a", "other-d");
                assertThat(states(admin.listTransactions(new ListTransactionsOptions()
                        .filterOnTransactionalIdPattern("list-.*")).all().get()).keySet())
                        .containsExactlyInAnyOrder("list-a", "list-b", "list-c");
                long producerIdOfB = admin.describeTransactions(List.of("list-b")).description("list-b").get().producerId();
                assertThat(states(admin.listTransactions(new ListTransactionsOptions()
                        .filterProducerIds(Set.of(producerIdOfB))).all().get()).keySet()).containsExactly("list-b");
            } finally {
                producers.forEach(p -> p.close(Duration.ZERO));
            }
        }
    }

    @Test
    void listTransactionsFiltersOnHowLongTheTransactionHasRunByTheClusterClock() throws Exception {
        ClusterClock clock = ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z"));
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(1).topic(TOPIC, 1, 1).clock(clock).start();
                Admin admin = Admin.create(cluster.adminConfig());
                KafkaProducer<String, String> producer = producer(cluster, "slow-tx")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "v")).get();

            // The transaction is now 10 s old: it has run longer than 9.999 s, not longer than 10 s.
            clock.advance(Duration.ofSeconds(10));
            assertThat(listedWithDuration(admin, 9_999)).containsExactly("slow-tx");
            assertThat(listedWithDuration(admin, 10_000)).isEmpty();
        }
    }

    @Test
    void abortTransactionEndsAHangingTransactionSoTheLastStableOffsetAdvances() throws Exception {
        try (KafkaCluster cluster = cluster(); Admin admin = Admin.create(cluster.adminConfig())) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            KafkaProducer<String, String> hanging = producer(cluster, "hanging-tx");
            hanging.initTransactions();
            hanging.beginTransaction();
            hanging.send(new ProducerRecord<>(TOPIC, 0, "k", "never-committed")).get();
            // Gone without a word: the transaction stays open and holds the last stable offset at its first record.
            hanging.close(Duration.ZERO);
            assertThat(cluster.partition(TOPIC, 0).lastStableOffset()).isZero();

            ProducerState state = admin.describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers().get(0);
            assertThat(state.currentTransactionStartOffset()).hasValue(0L);
            admin.abortTransaction(new AbortTransactionSpec(tp, state.producerId(), (short) state.producerEpoch(),
                    Math.max(0, state.coordinatorEpoch().orElse(0)))).all().get();

            await().atMost(10, TimeUnit.SECONDS).untilAsserted(() ->
                    assertThat(cluster.partition(TOPIC, 0).lastStableOffset()).as("LSO after the abort marker").isEqualTo(2));
            assertThat(admin.describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers().get(0)
                    .currentTransactionStartOffset()).isEmpty();
            Map<String, Object> config = cluster.consumerConfig(null);
            config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                assertThat(consumer.endOffsets(List.of(tp))).containsEntry(tp, 2L);
                assertThat(consumer.poll(Duration.ofMillis(500))).as("read_committed never sees the aborted record").isEmpty();
            }
        }
    }

    @Test
    void abortTransactionWithAnOlderProducerEpochIsRefusedAndTheTransactionStaysOpen() throws Exception {
        try (KafkaCluster cluster = cluster(); Admin admin = Admin.create(cluster.adminConfig())) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            try (KafkaProducer<String, String> first = producer(cluster, "epochs-tx")) {
                first.initTransactions();
            }
            KafkaProducer<String, String> current = producer(cluster, "epochs-tx");
            current.initTransactions();
            current.beginTransaction();
            current.send(new ProducerRecord<>(TOPIC, 0, "k", "open")).get();
            ProducerState state = admin.describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers().get(0);
            assertThat(state.producerEpoch()).isEqualTo(1);

            // As Kafka's log: a marker from an epoch older than the producer's is a zombie's.
            assertThatThrownBy(() -> admin.abortTransaction(new AbortTransactionSpec(tp, state.producerId(), (short) 0, 0))
                    .all().get()).hasCauseInstanceOf(InvalidProducerEpochException.class);
            assertThat(cluster.partition(TOPIC, 0).lastStableOffset()).as("the transaction is still open").isZero();
            current.close(Duration.ZERO);
        }
    }

    @Test
    void failNextAnswersWriteTxnMarkersWithTheInjectedErrorAndTheTransactionStaysOpen() throws Exception {
        try (KafkaCluster cluster = cluster(); Admin admin = Admin.create(cluster.adminConfig());
                KafkaProducer<String, String> producer = producer(cluster, "injected-tx")) {
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "open")).get();
            ProducerState state = admin.describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers().get(0);
            cluster.faults().failNext(Api.WRITE_TXN_MARKERS, KafkaError.INVALID_PRODUCER_EPOCH, 1);

            assertThatThrownBy(() -> admin.abortTransaction(new AbortTransactionSpec(tp, state.producerId(),
                    (short) state.producerEpoch(), 0)).all().get()).hasCauseInstanceOf(InvalidProducerEpochException.class);
            assertThat(cluster.partition(TOPIC, 0).lastStableOffset()).as("no marker was written").isZero();
            producer.commitTransaction();
        }
    }

    @Test
    void listTransactionsWithAnInvalidPatternFailsWithInvalidRegularExpression() {
        try (KafkaCluster cluster = cluster(); Admin admin = Admin.create(cluster.adminConfig())) {
            assertThatThrownBy(() -> admin.listTransactions(new ListTransactionsOptions().filterOnTransactionalIdPattern("tx-[")).all().get())
                    .hasCauseInstanceOf(InvalidRegularExpression.class);
        }
    }

    @Test
    void fenceProducersBumpsTheEpochSoTheProducerHoldingItIsFenced() throws Exception {
        try (KafkaCluster cluster = cluster(); Admin admin = Admin.create(cluster.adminConfig());
                KafkaProducer<String, String> producer = producer(cluster, "fenced-tx")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "v")).get();

            admin.fenceProducers(List.of("fenced-tx")).all().get();

            TransactionDescription after = admin.describeTransactions(List.of("fenced-tx")).description("fenced-tx").get();
            // As Kafka: the open transaction is aborted with the epoch bumped to fence it (1); Admin retries through
            // CONCURRENT_TRANSACTIONS until the abort completes, and its InitProducerId bumps once more (2).
            assertThat(after.producerEpoch()).as("%s", after).isEqualTo((short) 2);
            assertThat(after.state()).as("%s", after).isEqualTo(TransactionState.EMPTY);
            assertThatThrownBy(producer::commitTransaction).isInstanceOf(ProducerFencedException.class);
        }
    }

    private static Map<String, TransactionState> states(Collection<TransactionListing> listings) {
        return listings.stream().collect(java.util.stream.Collectors.toMap(TransactionListing::transactionalId,
                TransactionListing::state));
    }

    private static Set<String> listedWithDuration(Admin admin, long durationMs) throws Exception {
        return states(admin.listTransactions(new ListTransactionsOptions().filterOnDuration(durationMs)).all().get()).keySet();
    }
}
