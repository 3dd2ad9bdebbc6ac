package dev.samsa.handler;

import dev.samsa.event.FaultInjected;
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
 * The APIs a broker serves. The ApiVersions response is built from this table, so a broker advertises exactly what
 * it implements; registering an API twice fails at start-up.
 */
public final class Handlers {

    private static final Logger log = LoggerFactory.getLogger(Handlers.class);

    private final Map<ApiKeys, ApiHandler> handlers = new EnumMap<>(ApiKeys.class);

    public Handlers(List<ApiHandler> all) {
        for (ApiHandler h : all) {
            if (handlers.put(h.apiKey(), h) != null) {
                throw new IllegalStateException("Two handlers registered for " + h.apiKey());
            }
        }
    }

    /** Every handler this project has; the one list to extend when an API is added. */
    public static Handlers standard() {
        RequestCodec.selfCheck();
        return new Handlers(List.of(
                new ApiVersionsHandler(),
                new MetadataHandler(),
                new ProduceHandler(),
                new FetchHandler(),
                new ListOffsetsHandler(),
                new InitProducerIdHandler(),
                new OffsetForLeaderEpochHandler(),
                new CreateTopicsHandler(),
                new DeleteTopicsHandler(),
                new CreatePartitionsHandler(),
                new DescribeConfigsHandler(),
                new IncrementalAlterConfigsHandler(),
                new DescribeClusterHandler(),
                new DeleteRecordsHandler(),
                new ElectLeadersHandler(),
                new AlterPartitionReassignmentsHandler(),
                new ListPartitionReassignmentsHandler(),
                new FindCoordinatorHandler(),
                new JoinGroupHandler(),
                new SyncGroupHandler(),
                new HeartbeatHandler(),
                new LeaveGroupHandler(),
                new OffsetCommitHandler(),
                new OffsetFetchHandler(),
                new DescribeGroupsHandler(),
                new ListGroupsHandler(),
                new DeleteGroupsHandler(),
                new OffsetDeleteHandler()));
    }

    public Collection<ApiHandler> all() {
        return handlers.values();
    }

    public boolean supports(ApiKeys apiKey, short version) {
        ApiHandler h = handlers.get(apiKey);
        return h != null && version >= h.minVersion() && version <= h.maxVersion();
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
                ApiHandler handler = handlers.get(request.apiKey());
                try {
                    broker.cluster().loop().execute(() -> handleWithFaults(handler, request, broker));
                } catch (IllegalStateException closed) {
                    request.closeConnection("the broker is shutting down");
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

    /** Injected failures answer before the handler runs; added latency delays the handling in wall time. */
    private static void handleWithFaults(ApiHandler handler, KafkaRequest request, BrokerContext broker) {
        Errors injected = broker.cluster().faults().takeFailure(request.apiKey());
        if (injected != null) {
            broker.cluster().requestCounts().merge(request.apiKey(), 1L, Long::sum);
            broker.cluster().timeline().record(new FaultInjected(request.apiKey().toString(), broker.brokerId(),
                    injected.toString()));
            request.respondWithError(injected.exception());
            return;
        }
        long latency = broker.cluster().faults().latencyMs(broker.brokerId());
        if (latency > 0) {
            broker.cluster().scheduler().scheduleWall(broker.cluster().faults().nextDelayKey(), latency,
                    () -> handle(handler, request, broker));
        } else {
            handle(handler, request, broker);
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
