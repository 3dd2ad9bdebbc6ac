package dev.samsa.handler;

import dev.samsa.event.AuthenticationFailed;
import dev.samsa.event.FaultInjected;
import dev.samsa.fault.InterceptedRequest;
import dev.samsa.fault.Verdict;
import dev.samsa.network.RequestDispatcher;
import dev.samsa.wire.KafkaRequest;
import dev.samsa.wire.RequestCodec;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The APIs a broker serves, each with the versions it serves stated in {@link #standard()} (kfake's {@code regKey}).
 * The ApiVersions response is built from this table, so a broker advertises exactly what it implements, and an
 * upgrade of kafka-clients never widens it by itself: a range kafka-clients can no longer encode, or an API
 * registered twice, fails at start-up.
 */
public final class Handlers {

    private static final Logger log = LoggerFactory.getLogger(Handlers.class);

    /** One row of the table: a handler and the versions it was written for, as its header comment names them. */
    public record Registration(ApiHandler handler, short minVersion, short maxVersion) {

        public ApiKeys apiKey() {
            return handler.apiKey();
        }

        boolean supports(short version) {
            return version >= minVersion && version <= maxVersion;
        }
    }

    private final Map<ApiKeys, Registration> registrations = new EnumMap<>(ApiKeys.class);

    /** @throws IllegalStateException for an API registered twice or a range kafka-clients cannot encode */
    public Handlers(List<Registration> all) {
        for (Registration r : all) {
            ApiKeys key = r.apiKey();
            if (r.minVersion() > r.maxVersion() || r.minVersion() < key.oldestVersion() || r.maxVersion() > key.latestVersion()) {
                throw new IllegalStateException(r.handler().getClass().getSimpleName() + " states " + key.name + " v"
                        + r.minVersion() + "-" + r.maxVersion() + ", but this kafka-clients encodes v" + key.oldestVersion()
                        + "-" + key.latestVersion() + ": state the range the handler serves with this kafka-clients");
            }
            if (registrations.put(key, r) != null) {
                throw new IllegalStateException("Two handlers registered for " + key);
            }
        }
    }

    static Registration serves(ApiHandler handler, int minVersion, int maxVersion) {
        return new Registration(handler, (short) minVersion, (short) maxVersion);
    }

    /**
     * Every handler this project has, with the versions it serves: the one list to extend when an API is added, and
     * the one place where a version is added once its handler serves it.
     */
    public static Handlers standard() {
        RequestCodec.selfCheck();
        return new Handlers(List.of(
                serves(new ApiVersionsHandler(), 0, 5),
                serves(new MetadataHandler(), 0, 13),
                serves(new ProduceHandler(), 3, 13),
                serves(new FetchHandler(), 4, 18),
                serves(new ListOffsetsHandler(), 1, 11),
                serves(new InitProducerIdHandler(), 0, 5),
                serves(new AddPartitionsToTxnHandler(), 0, 5),
                serves(new AddOffsetsToTxnHandler(), 0, 4),
                serves(new EndTxnHandler(), 0, 5),
                serves(new OffsetForLeaderEpochHandler(), 2, 4),
                serves(new CreateTopicsHandler(), 2, 7),
                serves(new DeleteTopicsHandler(), 1, 6),
                serves(new CreatePartitionsHandler(), 0, 3),
                serves(new DescribeConfigsHandler(), 1, 4),
                serves(new IncrementalAlterConfigsHandler(), 0, 1),
                serves(new AlterConfigsHandler(), 0, 2),
                serves(new DescribeClientQuotasHandler(), 0, 1),
                serves(new AlterClientQuotasHandler(), 0, 1),
                serves(new DescribeClusterHandler(), 0, 2),
                serves(new DescribeTopicPartitionsHandler(), 0, 0),
                serves(new DescribeLogDirsHandler(), 1, 5),
                serves(new DeleteRecordsHandler(), 0, 2),
                serves(new ElectLeadersHandler(), 0, 2),
                serves(new AlterPartitionReassignmentsHandler(), 0, 1),
                serves(new ListPartitionReassignmentsHandler(), 0, 0),
                serves(new FindCoordinatorHandler(), 0, 6),
                serves(new JoinGroupHandler(), 0, 9),
                serves(new SyncGroupHandler(), 0, 5),
                serves(new HeartbeatHandler(), 0, 4),
                serves(new ConsumerGroupHeartbeatHandler(), 0, 1),
                serves(new ConsumerGroupDescribeHandler(), 0, 1),
                serves(new LeaveGroupHandler(), 0, 5),
                serves(new OffsetCommitHandler(), 2, 10),
                serves(new OffsetFetchHandler(), 1, 10),
                serves(new TxnOffsetCommitHandler(), 0, 6),
                serves(new DescribeGroupsHandler(), 0, 6),
                serves(new ListGroupsHandler(), 0, 5),
                serves(new DeleteGroupsHandler(), 0, 3),
                serves(new OffsetDeleteHandler(), 0, 0),
                serves(new WriteTxnMarkersHandler(), 1, 1),
                serves(new DescribeProducersHandler(), 0, 0),
                serves(new DescribeTransactionsHandler(), 0, 0),
                serves(new ListTransactionsHandler(), 0, 2),

                serves(new SaslHandshakeHandler(), 0, 1),
                serves(new SaslAuthenticateHandler(), 0, 2),
                serves(new DescribeUserScramCredentialsHandler(), 0, 0),
                serves(new AlterUserScramCredentialsHandler(), 0, 0),
                serves(new DescribeAclsHandler(), 1, 3),
                serves(new CreateAclsHandler(), 1, 3),
                serves(new DeleteAclsHandler(), 1, 3)));
    }

    /** The table, in API key order: what ApiVersions advertises. */
    public Collection<Registration> all() {
        return registrations.values();
    }

    public boolean supports(ApiKeys apiKey, short version) {
        Registration r = registrations.get(apiKey);
        return r != null && r.supports(version);
    }

    /** The dispatcher of one broker's listener: requests go to the cluster loop, in arrival order. */
    public RequestDispatcher dispatcherFor(BrokerContext broker) {
        return new RequestDispatcher() {
            @Override
            public boolean supports(ApiKeys apiKey, short version) {
                return Handlers.this.supports(apiKey, version);
            }

            @Override
            public void dispatch(KafkaRequest request) {
                broker.cluster().faults().throwIfUnexpectedFailurePending(request.apiKey());
                ApiHandler handler = registrations.get(request.apiKey()).handler();
                try {
                    broker.cluster().loop().execute(() -> handleWithFaults(handler, request, broker));
                } catch (IllegalStateException closed) {
                    request.closeConnection("the broker is shutting down");
                }
            }

            @Override
            public void authenticationFailed(String listener, String mechanism, String principal, String message) {
                try {
                    broker.cluster().loop().execute(() -> broker.cluster().timeline().record(
                            new AuthenticationFailed(broker.brokerId(), listener, mechanism, principal, message)));
                } catch (IllegalStateException closed) {
                    // The cluster is closing: its timeline is done.
                }
            }

            @Override
            public void connectionClosed(String clientAddress) {
                try {
                    broker.cluster().loop().execute(() -> broker.groups().connectionClosed(broker.brokerId(), clientAddress));
                } catch (IllegalStateException closed) {
                    // The cluster is closing: no group outlives it.
                }
            }
        };
    }

    /** The faults in force decide first (see FaultState): an injected error answers at once, a delay waits in wall time. */
    private static void handleWithFaults(ApiHandler handler, KafkaRequest request, BrokerContext broker) {
        Verdict verdict;
        try {
            verdict = broker.cluster().faults().onRequest(new InterceptedRequest(request.apiKey(), request.version(),
                    broker.brokerId(), request.clientId(), request.header().correlationId(),
                    RequestTopics.of(request, broker.cluster().metadata())));
        } catch (RuntimeException | Error e) {
            log.error("A request interceptor failed on {} to broker {}; answering UNKNOWN_SERVER_ERROR", request,
                    broker.brokerId(), e);
            broker.cluster().loop().reportUnexpected(broker.brokerId(), e);
            request.respondWithError(Errors.UNKNOWN_SERVER_ERROR);
            return;
        }
        switch (verdict.action()) {
            case FAIL -> {
                broker.cluster().requestCounts().merge(request.apiKey(), 1L, Long::sum);
                broker.cluster().timeline().record(new FaultInjected(request.apiKey().toString(), broker.brokerId(),
                        verdict.error().toString()));
                request.respondWithError(verdict.error().exception());
            }
            case DELAY -> broker.cluster().scheduler().scheduleWall(broker.cluster().faults().nextDelayKey(),
                    verdict.delayMs(), () -> handle(handler, request, broker));
            case PASS -> handle(handler, request, broker);
        }
    }

    private static void handle(ApiHandler handler, KafkaRequest request, BrokerContext broker) {
        broker.cluster().requestCounts().merge(request.apiKey(), 1L, Long::sum);
        try {
            handler.handle(request, broker);
        } catch (Throwable e) {
            if (e instanceof ApiException) {
                // The client's request was wrong, and the answer says so: one line, no stack trace.
                log.info("{} to broker {} answered {}: {}", request, broker.brokerId(), Errors.forException(e), e.getMessage());
            } else {
                log.error("{} failed unexpectedly on broker {}; answering UNKNOWN_SERVER_ERROR. This is a Samsa bug: "
                        + "please report it with this stack trace (KafkaCluster.internalErrors() keeps it)",
                        request, broker.brokerId(), e);
                broker.cluster().loop().reportUnexpected(broker.brokerId(), e);
            }
            try {
                request.respondWithError(e);
            } catch (Throwable again) {
                request.closeConnection("no error response possible: " + again);
            }
        }
    }
}
