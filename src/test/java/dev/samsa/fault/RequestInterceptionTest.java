package dev.samsa.fault;

import static dev.samsa.junit.SamsaAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.samsa.Api;
import dev.samsa.Faults;
import dev.samsa.GroupPartition;
import dev.samsa.KafkaCluster;
import dev.samsa.KafkaError;
import dev.samsa.RequestInterceptor;
import dev.samsa.RequestInterceptor.Verdict;
import dev.samsa.event.FaultInjected;
import dev.samsa.event.InterceptionRemoved;
import dev.samsa.event.RequestsIntercepted;
import dev.samsa.event.TimedEvent;
import dev.samsa.junit.EmbeddedKafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.Lifecycle;
import dev.samsa.junit.Topic;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownServerException;
import org.junit.jupiter.api.Test;

/** Request interception by API key, through the public API, with real clients against a real cluster. */
@EmbeddedKafkaCluster(seed = 31, topics = @Topic(name = "t"), lifecycle = Lifecycle.PER_METHOD)
class RequestInterceptionTest {

    private static final TopicPartition T0 = new TopicPartition("t", 0);

    @Test
    void failNextOfATopicFailsOnlyTheRequestsNamingItAndInterceptorsSeeEachRequestsTopics(KafkaCluster cluster) throws Exception {
        cluster.createTopic("audit", 1, 1);
        Queue<String> produced = new ConcurrentLinkedQueue<>();
        cluster.faults().intercept(Api.PRODUCE, request -> {
            produced.add(String.join(",", request.topics()));
            return Verdict.pass();
        });
        cluster.faults().failNext(Api.PRODUCE, KafkaError.INVALID_TIMESTAMP, 1, "t");
        Map<String, Object> config = cluster.producerConfig();
        config.put("retries", "0");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            producer.send(new ProducerRecord<>("audit", 0, "k", "v")).get(10, TimeUnit.SECONDS);
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("t", 0, "k", "v")).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.InvalidTimestampException.class);
            producer.send(new ProducerRecord<>("t", 0, "k", "v")).get(10, TimeUnit.SECONDS);
        }
        assertThat(produced).containsExactly("audit", "t", "t");
        assertThat(cluster.events().events(FaultInjected.class)).singleElement()
                .satisfies(f -> assertThat(f.error()).isEqualTo("INVALID_TIMESTAMP"));
    }

    @Test
    void aTestCountsOffsetCommitsWithoutFailingThem(KafkaCluster cluster) {
        AtomicInteger commits = new AtomicInteger();
        cluster.faults().intercept(Api.OFFSET_COMMIT, request -> {
            commits.incrementAndGet();
            return Verdict.pass();
        });
        try (KafkaConsumer<String, String> consumer = consumer(cluster, "billing")) {
            for (long offset = 1; offset <= 3; offset++) {
                consumer.commitSync(Map.of(T0, new OffsetAndMetadata(offset)));
            }
            assertThat(commits).as("OffsetCommit requests seen").hasValue(3);
            assertThat(consumer.committed(Set.of(T0)).get(T0).offset()).isEqualTo(3);
        }
        assertThat(cluster.group("billing").committed()).containsEntry(new GroupPartition("t", 0), 3L);
        assertThat(cluster.events().events(FaultInjected.class)).isEmpty();
    }

    @Test
    void anObserverSeesTheRequestThatTheOneShotInterceptorAfterItFailsAndTheRetryThatFollows(KafkaCluster cluster) {
        AtomicInteger seen = new AtomicInteger();
        cluster.faults().intercept(Api.OFFSET_COMMIT, request -> {
            seen.incrementAndGet();
            return Verdict.pass();
        });
        cluster.faults().intercept(Api.OFFSET_COMMIT, request -> Verdict.fail(KafkaError.COORDINATOR_LOAD_IN_PROGRESS));
        try (KafkaConsumer<String, String> consumer = consumer(cluster, "billing")) {
            // The error is retriable: commitSync tries again, and the failing interceptor is gone by then.
            consumer.commitSync(Map.of(T0, new OffsetAndMetadata(5)));
        }
        assertThat(seen).as("the failed commit and its retry").hasValue(2);
        assertThat(cluster.group("billing").committed()).containsEntry(new GroupPartition("t", 0), 5L);
        assertThat(cluster.events().events(FaultInjected.class)).extracting(FaultInjected::api, FaultInjected::error)
                .containsExactly(tuple("OFFSET_COMMIT", "COORDINATOR_LOAD_IN_PROGRESS"));
    }

    @Test
    void anInterceptorOfEveryApiSeesEachRequestsHeaderAndBroker(KafkaCluster cluster) throws Exception {
        Queue<RequestInterceptor.Request> requests = new ConcurrentLinkedQueue<>();
        cluster.faults().interceptAll(request -> {
            requests.add(request);
            return Verdict.pass();
        });
        try (KafkaProducer<String, String> producer = producer(cluster, Map.of("client.id", "billing-app"))) {
            producer.send(new ProducerRecord<>("t", 0, "k", "v")).get(30, TimeUnit.SECONDS);
        }
        assertThat(requests).extracting(RequestInterceptor.Request::api).contains(Api.API_VERSIONS, Api.METADATA, Api.PRODUCE);
        assertThat(requests).allSatisfy(r -> {
            assertThat(r.brokerId()).isEqualTo(1);
            assertThat(r.clientId()).isEqualTo("billing-app");
        });
        assertThat(requests).filteredOn(r -> r.api() == Api.PRODUCE).singleElement()
                .satisfies(r -> assertThat(r.version()).isBetween((short) 3, (short) 13));
        assertThat(requests).extracting(RequestInterceptor.Request::correlationId).doesNotHaveDuplicates();
    }

    @Test
    void aDelayedRequestIsAnsweredAfterTheDelayAndLosesNothing(KafkaCluster cluster) throws Exception {
        try (KafkaProducer<String, String> producer = producer(cluster, Map.of())) {
            producer.send(new ProducerRecord<>("t", 0, "k", "warm")).get(30, TimeUnit.SECONDS);
            cluster.faults().intercept(Api.PRODUCE, request -> Verdict.delay(Duration.ofMillis(300)));
            long start = System.nanoTime();
            producer.send(new ProducerRecord<>("t", 0, "k", "held")).get(30, TimeUnit.SECONDS);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
        }
        assertThat(cluster).topic("t").containsExactlyValues("warm", "held");
    }

    @Test
    void aRemovedInterceptorSeesNoMoreRequests(KafkaCluster cluster) {
        AtomicInteger commits = new AtomicInteger();
        try (KafkaConsumer<String, String> consumer = consumer(cluster, "billing")) {
            try (Faults.Interception counting = cluster.faults().intercept(Api.OFFSET_COMMIT, request -> {
                commits.incrementAndGet();
                return Verdict.pass();
            })) {
                consumer.commitSync(Map.of(T0, new OffsetAndMetadata(1)));
            }
            consumer.commitSync(Map.of(T0, new OffsetAndMetadata(2)));
        }
        assertThat(commits).hasValue(1);
        assertThat(cluster.group("billing").committed()).containsEntry(new GroupPartition("t", 0), 2L);
        assertThat(cluster).timeline().events().extracting(TimedEvent::event)
                .contains(new RequestsIntercepted("OFFSET_COMMIT"), new InterceptionRemoved("OFFSET_COMMIT"));
    }

    /** Its own cluster: the interceptor's failure is an internal error, which the JUnit extension would fail the test on. */
    @Test
    void anInterceptorThatThrowsAnswersUnknownServerErrorAndIsKeptAsAnInternalError() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().seed(32).topic("t", 1, 1).start()) {
            AtomicBoolean first = new AtomicBoolean(true);
            cluster.faults().intercept(Api.PRODUCE, request -> {
                if (first.getAndSet(false)) {
                    throw new IllegalStateException("a bug in the test's interceptor");
                }
                return Verdict.pass();
            });
            try (KafkaProducer<String, String> producer = producer(cluster, Map.of("retries", "0", "enable.idempotence", "false"))) {
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>("t", 0, "k", "v")).get(30, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(UnknownServerException.class);
                producer.send(new ProducerRecord<>("t", 0, "k", "after")).get(30, TimeUnit.SECONDS);
            }
            assertThat(cluster.internalErrors()).singleElement()
                    .satisfies(e -> assertThat(e.error()).hasMessage("a bug in the test's interceptor"));
        }
    }

    @Test
    void failNextQueuesBehindTheInterceptorsAlreadyInstalled(KafkaCluster cluster) throws Exception {
        cluster.faults().failNext(Api.PRODUCE, KafkaError.NOT_LEADER_OR_FOLLOWER, 2)
                .failNext(Api.PRODUCE, KafkaError.NOT_ENOUGH_REPLICAS, 1);
        try (KafkaProducer<String, String> producer = producer(cluster, Map.of("retry.backoff.ms", "10"))) {
            // Both errors are retriable: the producer retries past the three failures, which come in install order.
            assertThat(producer.send(new ProducerRecord<>("t", 0, "k", "v")).get(30, TimeUnit.SECONDS).offset()).isZero();
        }
        assertThat(cluster.events().events(FaultInjected.class)).extracting(FaultInjected::error)
                .containsExactly("NOT_LEADER_OR_FOLLOWER", "NOT_LEADER_OR_FOLLOWER", "NOT_ENOUGH_REPLICAS");
    }

    @Test
    void anInterceptorNeedsAnApiAndAVerdictNeedsAnErrorAndNoNegativeDelay(KafkaCluster cluster) {
        assertThatThrownBy(() -> cluster.faults().intercept(null, request -> Verdict.pass())).hasMessageContaining("api");
        assertThatThrownBy(() -> cluster.faults().failNext(null, KafkaError.NOT_COORDINATOR, 1)).hasMessageContaining("api");
        assertThatThrownBy(() -> Verdict.fail(null)).hasMessageContaining("error");
        assertThatThrownBy(() -> Verdict.delay(Duration.ofMillis(-1))).hasMessageContaining("cannot be negative");
        assertThat(Verdict.fail(KafkaError.NOT_COORDINATOR).andKeep()).hasToString("FAIL NOT_COORDINATOR, kept");
    }

    private static KafkaConsumer<String, String> consumer(KafkaCluster cluster, String group) {
        Map<String, Object> config = cluster.consumerConfig(group);
        config.put("enable.auto.commit", "false");
        return new KafkaConsumer<>(config);
    }

    private static KafkaProducer<String, String> producer(KafkaCluster cluster, Map<String, Object> extra) {
        Map<String, Object> config = cluster.producerConfig();
        config.put("linger.ms", "0");
        config.putAll(extra);
        return new KafkaProducer<>(config);
    }
}
