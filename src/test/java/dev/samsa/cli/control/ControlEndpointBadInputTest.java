package dev.samsa.cli.control;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.time.ClusterClock;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every resource's bad input: unknown names, malformed or mistyped JSON, a wrong method, a state that refuses the
 * action. Each is a JSON error with the status and a message naming the problem, never a stack trace, and changes
 * nothing. One cluster for the class, since none of these requests acts on it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ControlEndpointBadInputTest {

    private KafkaCluster cluster;
    private ControlEndpoint endpoint;
    private ControlClient control;

    @BeforeAll
    void start() throws Exception {
        cluster = KafkaCluster.builder().brokers(2).seed(28).clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z")))
                .topic("orders", 2, 2).start();
        endpoint = ControlEndpoint.start(cluster, 0);
        control = new ControlClient(endpoint.url());
    }

    @AfterAll
    void stop() {
        endpoint.close();
        cluster.close();
    }

    static Stream<Arguments> badRequests() {
        return Stream.of(
                // unknown resources and methods
                Arguments.of("GET", "/nothing-here", null, 404, "No resource /nothing-here"),
                Arguments.of("PUT", "/cluster", "{}", 405, "PUT /cluster is not supported; use GET"),
                Arguments.of("POST", "/cluster", "{}", 405, "use GET"),
                Arguments.of("DELETE", "/clock", null, 405, "use GET"),
                Arguments.of("GET", "/brokers/1/crash", null, 405, "use POST"),
                Arguments.of("GET", "/clock/advance", null, 405, "use POST"),
                Arguments.of("GET", "/await", null, 405, "use POST"),
                Arguments.of("PUT", "/faults", null, 405, "use DELETE or GET"),
                Arguments.of("GET", "/faults/fail-next", null, 405, "use POST"),
                Arguments.of("PUT", "/triggers/1", null, 405, "use DELETE"),
                Arguments.of("POST", "/timeline", null, 405, "use GET"),
                Arguments.of("POST", "/timeline.html", null, 405, "use GET"),
                Arguments.of("DELETE", "/history", null, 405, "use GET"),
                Arguments.of("POST", "/groups/billing", null, 405, "use GET"),
                Arguments.of("POST", "/partitions/orders/0/followers/2/pause/now", null, 404, "No resource"),
                // brokers
                Arguments.of("GET", "/brokers/7", null, 404, "Unknown broker 7; this cluster has brokers 1..2"),
                Arguments.of("GET", "/brokers/one", null, 400, "'one' in the path must be a whole number"),
                Arguments.of("POST", "/brokers/7/crash", null, 404, "Unknown broker 7"),
                Arguments.of("POST", "/brokers/0/power-loss", null, 404, "Unknown broker 0"),
                Arguments.of("POST", "/brokers/9/shutdown", null, 404, "Unknown broker 9"),
                Arguments.of("POST", "/brokers/9/start", null, 404, "Unknown broker 9"),
                Arguments.of("POST", "/brokers/9/heal", null, 404, "Unknown broker 9"),
                Arguments.of("POST", "/brokers/9/isolate", null, 404, "Unknown broker 9"),
                Arguments.of("POST", "/brokers/1/start", null, 409, "Broker 1 is running"),
                Arguments.of("POST", "/brokers/1/crash", "{\"now\":true}", 400, "Unknown field 'now'; this request takes no fields"),
                Arguments.of("POST", "/brokers/1/isolate", "{\"fromBrokers\":", 400, "Malformed JSON at character"),
                Arguments.of("POST", "/brokers/1/isolate", "{\"fromBrokers\":\"yes\"}", 400, "Field 'fromBrokers' must be true or false"),
                Arguments.of("POST", "/brokers/1/isolate", "[true]", 400, "The body must be a JSON object"),
                Arguments.of("POST", "/brokers/1/latency", "{}", 400, "Missing field 'ms'"),
                Arguments.of("POST", "/brokers/1/latency", "{\"ms\":\"200\"}", 400, "Field 'ms' must be a whole number, got \"200\""),
                Arguments.of("POST", "/brokers/1/latency", "{\"ms\":-1}", 400, "Field 'ms' must be 0"),
                Arguments.of("POST", "/brokers/9/latency", "{\"ms\":1}", 404, "Unknown broker 9"),
                Arguments.of("POST", "/brokers/9/drop-connections", null, 404, "Unknown broker 9"),
                // topics, partitions, groups, transactions
                Arguments.of("GET", "/topics/payments", null, 404, "Unknown topic 'payments'"),
                Arguments.of("GET", "/topics/orders/partitions/2", null, 404, "Unknown partition 2 of topic 'orders'; it has partitions 0..1"),
                Arguments.of("GET", "/topics/orders/partitions/first", null, 400, "'first' in the path must be a whole number"),
                Arguments.of("GET", "/groups/nobody", null, 404, "Unknown group 'nobody'"),
                Arguments.of("GET", "/transactions/nobody", null, 404, "Unknown transactional id 'nobody'"),
                Arguments.of("POST", "/partitions/payments/0/followers/1/pause", null, 404, "Unknown topic 'payments'"),
                Arguments.of("POST", "/partitions/orders/5/followers/1/resume", null, 404, "Unknown partition 5"),
                Arguments.of("POST", "/partitions/orders/0/followers/3/pause", null, 404, "Unknown broker 3"),
                Arguments.of("POST", "/clients/drop-connections", "{\"broker\":4}", 404, "Unknown broker 4"),
                Arguments.of("POST", "/clients/drop-connections", "{\"brokers\":1}", 400, "Unknown field 'brokers'"),
                // request interception
                Arguments.of("POST", "/faults/fail-next", "{\"api\":\"PRODUCER\",\"error\":\"NOT_LEADER_OR_FOLLOWER\"}", 400,
                        "Unknown API name 'PRODUCER'; one of PRODUCE, FETCH"),
                Arguments.of("POST", "/faults/fail-next", "{\"api\":\"PRODUCE\",\"error\":\"NOT_LEADER\"}", 400,
                        "Unknown error name 'NOT_LEADER'; one of UNKNOWN_SERVER_ERROR"),
                Arguments.of("POST", "/faults/fail-next", "{\"error\":\"NOT_LEADER_OR_FOLLOWER\"}", 400, "Missing field 'api'"),
                Arguments.of("POST", "/faults/fail-next", "{\"api\":\"PRODUCE\"}", 400, "Missing field 'error'"),
                Arguments.of("POST", "/faults/fail-next", "{\"api\":\"PRODUCE\",\"error\":\"NOT_LEADER_OR_FOLLOWER\",\"count\":0}",
                        400, "Field 'count' must be 1 or more"),
                Arguments.of("POST", "/faults/fail-next", "{\"api\":\"PRODUCE\",\"error\":\"NOT_LEADER_OR_FOLLOWER\",\"broker\":5}",
                        404, "Unknown broker 5"),
                Arguments.of("POST", "/faults/fail-next", "{\"api\":\"PRODUCE\",\"error\":\"NOT_LEADER_OR_FOLLOWER\",\"topic\":\"nope\"}",
                        404, "Unknown topic 'nope'"),
                Arguments.of("POST", "/faults/fail-next", "{\"api\":\"PRODUCE\",\"error\":\"NOT_LEADER_OR_FOLLOWER\",\"count\":1.5}",
                        400, "Field 'count' must be a whole number"),
                Arguments.of("POST", "/faults/fail-next", "{'api':'PRODUCE'}", 400, "Malformed JSON at character 1"),
                Arguments.of("POST", "/faults/delay-next", "{\"api\":\"FETCH\"}", 400, "Missing field 'ms'"),
                Arguments.of("POST", "/faults/delay-next", "{\"api\":\"FETCH\",\"ms\":10,\"error\":\"NONE\"}", 400, "Unknown field 'error'"),
                Arguments.of("POST", "/faults/hold-markers", "{}", 400, "Give either 'topic' and 'partition' or 'broker'"),
                Arguments.of("POST", "/faults/release-markers", "{\"topic\":\"orders\",\"partition\":9}", 404, "Unknown partition 9"),
                Arguments.of("POST", "/faults/transaction-coordinator", "{\"transactionalId\":\"t\",\"state\":\"Committing\"}", 400,
                        "Unknown transaction state 'Committing'"),
                Arguments.of("POST", "/faults/transaction-coordinator",
                        "{\"transactionalId\":\"t\",\"state\":\"PrepareCommit\",\"action\":\"explode\"}", 400,
                        "Field 'action' must be \"crash\" or \"isolate\""),
                // triggers
                Arguments.of("POST", "/triggers", "{\"when\":{\"event\":\"LeaderMoved\"},\"then\":{\"path\":\"/brokers/1/crash\"}}",
                        400, "Unknown event 'LeaderMoved'; one of groupEntered"),
                Arguments.of("POST", "/triggers", "{\"when\":{\"event\":\"BrokerStopped\",\"broker\":1},\"then\":{\"path\":\"/brokers/1/crash\"}}",
                        400, "Event BrokerStopped has no field 'broker'; its fields are brokerId, how"),
                Arguments.of("POST", "/triggers", "{\"when\":{\"event\":\"groupEntered\",\"group\":\"g\",\"state\":\"Rebalancing\"},"
                        + "\"then\":{\"path\":\"/brokers/1/crash\"}}", 400, "Unknown group state 'Rebalancing'"),
                Arguments.of("POST", "/triggers", "{\"when\":{\"event\":\"leaderChanged\",\"topic\":\"orders\"},"
                        + "\"then\":{\"path\":\"/brokers/1/crash\"}}", 400, "Missing field 'partition'"),
                Arguments.of("POST", "/triggers", "{\"when\":{\"event\":\"BrokerStopped\"}}", 400, "Missing field 'then'"),
                Arguments.of("POST", "/triggers", "{\"when\":{\"event\":\"BrokerStopped\"},\"then\":{\"path\":\"/clock/advance\"}}",
                        400, "An action's path must be a POST fault request of this endpoint"),
                Arguments.of("POST", "/triggers", "{\"when\":{\"event\":\"BrokerStopped\"},\"then\":{\"path\":\"/brokers/1/explode\"}}",
                        400, "An action's path must be a POST fault request"),
                Arguments.of("POST", "/triggers", "{\"when\":{\"event\":\"BrokerStopped\"},\"then\":[]}", 400, "Field 'then' names no action"),
                Arguments.of("POST", "/triggers", "{\"when\":\"BrokerStopped\",\"then\":{\"path\":\"/brokers/1/crash\"}}", 400,
                        "Field 'when' must be an object"),
                Arguments.of("DELETE", "/triggers/99", null, 404, "Unknown trigger 99"),
                Arguments.of("DELETE", "/triggers/first", null, 400, "'first' in the path must be a whole number"),
                // clock, timeline, await
                Arguments.of("POST", "/clock/advance", "{\"ms\":-5}", 400, "the clock never goes back"),
                Arguments.of("POST", "/clock/advance", "{\"seconds\":5}", 400, "Unknown field 'seconds'; this request takes ms"),
                Arguments.of("POST", "/clock/advance", "{\"ms\":45000", 400, "Malformed JSON"),
                Arguments.of("GET", "/timeline?since=last", null, 400, "Query parameter 'since' must be a whole number, got 'last'"),
                Arguments.of("GET", "/timeline?since=-1", null, 400, "Query parameter 'since' must be 0 or more"),
                Arguments.of("POST", "/await", "{}", 400, "Await either a group"),
                Arguments.of("POST", "/await", "{\"group\":\"g\",\"state\":\"Balanced\"}", 400, "Unknown group state 'Balanced'"),
                Arguments.of("POST", "/await", "{\"group\":\"g\"}", 400, "Missing field 'state'"),
                Arguments.of("POST", "/await", "{\"group\":\"g\",\"state\":\"Stable\",\"timeoutMs\":-1}", 400, "Field 'timeoutMs' must be"),
                Arguments.of("POST", "/await", "{\"event\":\"LeaderChanged\",\"topics\":\"orders\"}", 400, "Event LeaderChanged has no field 'topics'"),
                Arguments.of("POST", "/await", "{\"event\":\"LeaderChanged\",\"since\":\"start\"}", 400, "Field 'since' must be a whole number"));
    }

    @ParameterizedTest(name = "{0} {1} {2} -> {3}")
    @MethodSource("badRequests")
    void aBadRequestIsAJsonErrorNamingTheProblem(String method, String path, String body, int status, String message) {
        long before = new ActionResult(cluster).position();
        ControlClient.Reply reply = control.send(method, path, body);
        assertThat(reply.status()).as("%s", reply).isEqualTo(status);
        assertThat(reply.response().headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
        assertThat(reply.error()).as("%s", reply).contains(message);
        assertThat(reply.number("status")).isEqualTo(status);
        assertThat(reply.body()).doesNotContain("\tat ", "Exception");
        if (status == 405) {
            assertThat(reply.response().headers().firstValue("Allow")).as("Allow header").isPresent();
        }
        assertThat(new ActionResult(cluster).position()).as("events recorded by a refused request: %s", cluster.events())
                .isEqualTo(before);
    }

    @Test
    void advancingASystemClockIsAConflictNamingTheLauncherOption() throws Exception {
        try (KafkaCluster system = KafkaCluster.builder().start(); ControlEndpoint e = ControlEndpoint.start(system, 0)) {
            ControlClient.Reply reply = new ControlClient(e.url()).post("/clock/advance", "{\"ms\":1000}");
            assertThat(reply.status()).as("%s", reply).isEqualTo(409);
            assertThat(reply.error()).contains("The clock is not manual", "--clock manual");
        }
    }

    @Test
    void anAwaitThatDoesNotHoldInTimeIs408NamingWhatItSawInstead() {
        ControlClient.Reply group = control.post("/await", "{\"group\":\"billing\",\"state\":\"Stable\",\"timeoutMs\":50}");
        assertThat(group.status()).as("%s", group).isEqualTo(408);
        assertThat(group.error()).contains("Group 'billing' was not Stable within 50 ms; it is Dead with 0 members");
        ControlClient.Reply event = control.post("/await", "{\"event\":\"BrokerStopped\",\"brokerId\":2,\"timeoutMs\":50}");
        assertThat(event.status()).as("%s", event).isEqualTo(408);
        assertThat(event.error()).contains("No event {\"event\":\"BrokerStopped\",\"brokerId\":2} at or after position 0 within 50 ms");
    }

    @Test
    void aRequestNamingAnotherHostIsRefused() throws Exception {
        // What a web page would send through a name that resolves to 127.0.0.1 (DNS rebinding).
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), endpoint.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(("GET /cluster HTTP/1.1\r\nHost: attacker.example:" + endpoint.port() + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(response).startsWith("HTTP/1.1 403").contains("127.0.0.1 or localhost only");
        }
    }
}
