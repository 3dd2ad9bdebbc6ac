package dev.samsa.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The order and lifetime of request interceptors, without a cluster: kfake's ControlKey semantics. */
class RequestInterceptorsTest {

    private final RequestInterceptors interceptors = new RequestInterceptors();
    private final List<String> seen = new ArrayList<>();

    @Test
    void interceptorsRunInInstallOrderAndTheFirstThatActsDecides() {
        interceptors.add(ApiKeys.PRODUCE, r -> saw("observer", Verdict.pass()));
        interceptors.add(ApiKeys.PRODUCE, r -> saw("failer", Verdict.fail(Errors.NOT_LEADER_OR_FOLLOWER)));
        interceptors.add(ApiKeys.PRODUCE, r -> saw("too late", Verdict.fail(Errors.REQUEST_TIMED_OUT)));

        assertThat(interceptors.intercept(request(ApiKeys.PRODUCE, 1))).isEqualTo(Verdict.fail(Errors.NOT_LEADER_OR_FOLLOWER));
        assertThat(seen).containsExactly("observer", "failer");
    }

    @Test
    void aPassingInterceptorStaysInstalledAndSeesEveryRequestOfItsApi() {
        interceptors.add(ApiKeys.OFFSET_COMMIT, r -> saw("commit " + r.correlationId(), Verdict.pass()));

        for (int correlationId = 1; correlationId <= 3; correlationId++) {
            assertThat(interceptors.intercept(request(ApiKeys.OFFSET_COMMIT, correlationId)).action()).isEqualTo(Verdict.Action.PASS);
        }
        interceptors.intercept(request(ApiKeys.FETCH, 4));
        assertThat(seen).containsExactly("commit 1", "commit 2", "commit 3");
        assertThat(interceptors.size()).isEqualTo(1);
    }

    @Test
    void anInterceptorThatActsIsRemovedAfterOneRequestUnlessItsVerdictKeepsIt() {
        interceptors.add(ApiKeys.PRODUCE, r -> Verdict.fail(Errors.NOT_ENOUGH_REPLICAS));
        assertThat(interceptors.intercept(request(ApiKeys.PRODUCE, 1)).action()).isEqualTo(Verdict.Action.FAIL);
        assertThat(interceptors.intercept(request(ApiKeys.PRODUCE, 2)).action()).isEqualTo(Verdict.Action.PASS);

        interceptors.add(ApiKeys.PRODUCE, r -> Verdict.delay(50).andKeep());
        assertThat(interceptors.intercept(request(ApiKeys.PRODUCE, 3)).delayMs()).isEqualTo(50);
        assertThat(interceptors.intercept(request(ApiKeys.PRODUCE, 4)).delayMs()).isEqualTo(50);
        assertThat(interceptors.size()).isEqualTo(1);
    }

    @Test
    void aPassThatRemovesEndsAnObserverAfterTheRequestItPasses() {
        interceptors.add(ApiKeys.METADATA, r -> saw("once", Verdict.pass().andRemove()));
        interceptors.intercept(request(ApiKeys.METADATA, 1));
        interceptors.intercept(request(ApiKeys.METADATA, 2));
        assertThat(seen).containsExactly("once");
        assertThat(interceptors.size()).isZero();
    }

    @Test
    void anInterceptorOfEveryApiSeesEachRequestAlongsideThoseOfOneApiInInstallOrder() {
        interceptors.add(ApiKeys.FETCH, r -> saw("fetch only", Verdict.pass()));
        interceptors.add(null, r -> saw("every " + r.api(), Verdict.pass()));
        interceptors.intercept(request(ApiKeys.FETCH, 1));
        interceptors.intercept(request(ApiKeys.HEARTBEAT, 2));
        assertThat(seen).containsExactly("fetch only", "every FETCH", "every HEARTBEAT");
    }

    @Test
    void anInterceptorInstalledByAnotherSeesOnlyLaterRequests() {
        interceptors.add(ApiKeys.PRODUCE, r -> {
            interceptors.add(ApiKeys.PRODUCE, later -> saw("installed by the first, saw " + later.correlationId(), Verdict.pass()));
            return saw("first", Verdict.pass().andRemove());
        });
        interceptors.intercept(request(ApiKeys.PRODUCE, 1));
        interceptors.intercept(request(ApiKeys.PRODUCE, 2));
        assertThat(seen).containsExactly("first", "installed by the first, saw 2");
    }

    @Test
    void anInterceptorRemovedByAnEarlierOneDoesNotSeeTheRequest() {
        List<RequestInterceptors.Installed> second = new ArrayList<>();
        interceptors.add(ApiKeys.PRODUCE, r -> {
            interceptors.remove(second.get(0));
            return saw("first", Verdict.pass());
        });
        second.add(interceptors.add(ApiKeys.PRODUCE, r -> saw("second", Verdict.fail(Errors.NOT_LEADER_OR_FOLLOWER))));
        assertThat(interceptors.intercept(request(ApiKeys.PRODUCE, 1)).action()).isEqualTo(Verdict.Action.PASS);
        assertThat(seen).containsExactly("first");
    }

    @Test
    void removingTwiceSaysTheSecondTimeThatItWasGone() {
        RequestInterceptors.Installed installed = interceptors.add(ApiKeys.PRODUCE, r -> Verdict.pass());
        assertThat(interceptors.remove(installed)).isTrue();
        assertThat(interceptors.remove(installed)).isFalse();
    }

    @Test
    void anInterceptorThatReturnsNoVerdictIsTold() {
        interceptors.add(ApiKeys.PRODUCE, r -> null);
        assertThatThrownBy(() -> interceptors.intercept(request(ApiKeys.PRODUCE, 7)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("returned no verdict").hasMessageContaining("PRODUCE");
    }

    @Test
    void aVerdictRefusesAFailureWithoutAnErrorAndANegativeDelay() {
        assertThatThrownBy(() -> new Verdict(Verdict.Action.FAIL, null, 0, false)).hasMessageContaining("needs an error");
        assertThatThrownBy(() -> Verdict.delay(-1)).hasMessageContaining("cannot be negative");
    }

    private Verdict saw(String what, Verdict verdict) {
        seen.add(what);
        return verdict;
    }

    static InterceptedRequest request(ApiKeys api, int correlationId) {
        return new InterceptedRequest(api, api.latestVersion(), 1, "client-" + correlationId, correlationId, java.util.Set.of());
    }
}
