package dev.samsa.handler;

import dev.samsa.txn.TransactionMetadata;
import dev.samsa.txn.TransactionState;
import dev.samsa.wire.KafkaRequest;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ListTransactionsRequestData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ListTransactions v0-2: the transactional ids this broker coordinates (Admin asks every broker), as Kafka's
 * listTransactionStates. Filters, each ignored when empty: states by Kafka's exact names (an unknown name is echoed in
 * UnknownStateFilters and matches nothing), producer ids, v1 a duration (only transactions started more than that many
 * ms ago by the cluster clock; negative for all), v2 a regular expression the whole id must match (an invalid one
 * answers INVALID_REGULAR_EXPRESSION). Dead ids, on their way out, are never listed.
 */
final class ListTransactionsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.LIST_TRANSACTIONS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        ListTransactionsRequestData data = request.data();
        ListTransactionsResponseData response = new ListTransactionsResponseData();
        Pattern pattern = null;
        String regex = data.transactionalIdPattern();
        if (regex != null && !regex.isEmpty()) {
            try {
                pattern = Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                request.respond(response.setErrorCode(Errors.INVALID_REGULAR_EXPRESSION.code()));
                return;
            }
        }
        Set<TransactionState> states = EnumSet.noneOf(TransactionState.class);
        for (String name : data.stateFilters()) {
            TransactionState state = byName(name);
            if (state == null) {
                response.unknownStateFilters().add(name);
            } else {
                states.add(state);
            }
        }
        Set<Long> producerIds = new HashSet<>(data.producerIdFilters());
        long nowMs = broker.cluster().nowMs();
        for (TransactionMetadata m : broker.transactions().coordinatedBy(broker.brokerId())) {
            boolean listed = m.state() != TransactionState.DEAD
                    && (producerIds.isEmpty() || producerIds.contains(m.producerId()))
                    && (data.stateFilters().isEmpty() || states.contains(m.state()))
                    && (data.durationFilter() < 0 || nowMs - m.startTimeMs() > data.durationFilter())
                    && (pattern == null || pattern.matcher(m.transactionalId()).matches())
                    && broker.authorizedQuietly(request, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, m.transactionalId());
            if (listed) {
                response.transactionStates().add(new ListTransactionsResponseData.TransactionState()
                        .setTransactionalId(m.transactionalId()).setProducerId(m.producerId())
                        .setTransactionState(m.state().toString()));
            }
        }
        request.respond(response);
    }

    private static TransactionState byName(String name) {
        for (TransactionState s : TransactionState.values()) {
            if (s.toString().equals(name)) {
                return s;
            }
        }
        return null;
    }
}
