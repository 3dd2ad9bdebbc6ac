package dev.samsa.fault;

import static dev.samsa.fault.RequestInterceptorsTest.request;
import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** What each fault does to a request and to replication, as FaultState decides it. Requests here reach broker 1. */
class FaultStateTest {

    private static final TopicPartition TP = new TopicPartition("orders", 0);

    private final FaultState faults = new FaultState();

    @Test
    void aRequestWithNoFaultInForcePasses() {
        assertThat(faults.onRequest(request(ApiKeys.PRODUCE, 1))).isEqualTo(Verdict.pass());
    }

    @Test
    void theBrokersLatencyDelaysARequestThatTheInterceptorsLetThrough() {
        faults.setLatency(1, 200);
        faults.setLatency(2, 900);
        assertThat(faults.onRequest(request(ApiKeys.PRODUCE, 1))).isEqualTo(Verdict.delay(200));
        faults.setLatency(1, 0);
        assertThat(faults.onRequest(request(ApiKeys.PRODUCE, 2))).isEqualTo(Verdict.pass());
    }

    @Test
    void anInjectedErrorAnswersAtOnceWhateverTheLatency() {
        faults.setLatency(1, 200);
        faults.interceptors().add(ApiKeys.PRODUCE, r -> Verdict.fail(Errors.NOT_LEADER_OR_FOLLOWER));
        assertThat(faults.onRequest(request(ApiKeys.PRODUCE, 1))).isEqualTo(Verdict.fail(Errors.NOT_LEADER_OR_FOLLOWER));
    }

    @Test
    void aDelayAnInterceptorAsksForAddsToTheBrokersLatency() {
        faults.setLatency(1, 200);
        faults.interceptors().add(ApiKeys.FETCH, r -> Verdict.delay(50));
        assertThat(faults.onRequest(request(ApiKeys.FETCH, 1)).delayMs()).isEqualTo(250);
        assertThat(faults.onRequest(request(ApiKeys.FETCH, 2)).delayMs()).isEqualTo(200);
    }

    @Test
    void aReplicaFetchCrossesBothBrokersLatency() {
        assertThat(faults.replicaFetchDelayMs(1, 2)).isZero();
        faults.setLatency(1, 200);
        faults.setLatency(2, 30);
        assertThat(faults.replicaFetchDelayMs(1, 2)).isEqualTo(230);
        assertThat(faults.replicaFetchDelayMs(3, 2)).as("leader without latency").isEqualTo(30);
    }

    @Test
    void replicationFlowsUnlessTheFollowerIsPausedOrEitherSideIsCutOffFromTheOtherBrokers() {
        assertThat(faults.canReplicate(TP, 1, 2)).isTrue();

        faults.pause(TP, 2);
        assertThat(faults.canReplicate(TP, 1, 2)).as("paused follower").isFalse();
        assertThat(faults.canReplicate(TP, 1, 3)).as("another follower").isTrue();
        assertThat(faults.canReplicate(new TopicPartition("orders", 1), 1, 2)).as("another partition").isTrue();
        faults.resume(TP, 2);

        faults.isolate(1, false);
        assertThat(faults.canReplicate(TP, 1, 2)).as("isolated from clients only").isTrue();
        faults.isolate(1, true);
        assertThat(faults.canReplicate(TP, 1, 2)).as("leader cut off").isFalse();
        assertThat(faults.canReplicate(TP, 3, 1)).as("follower cut off").isFalse();
        assertThat(faults.heal(1)).as("it had been cut off").isTrue();
        assertThat(faults.canReplicate(TP, 1, 2)).isTrue();
        assertThat(faults.heal(1)).as("healed already").isFalse();
    }
}
