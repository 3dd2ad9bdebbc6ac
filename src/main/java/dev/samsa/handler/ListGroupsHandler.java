package dev.samsa.handler;

import dev.samsa.group.classic.ClassicGroup;
import dev.samsa.group.modern.consumer.ConsumerGroup;
import dev.samsa.wire.KafkaRequest;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ListGroups v0-5: the groups this broker coordinates. v4+ filters by state (case-insensitive, Kafka's names), v5+ by
 * type ("classic" or "consumer", KIP-848).
 */
final class ListGroupsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.LIST_GROUPS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        ListGroupsRequestData data = request.data();
        Set<String> states = data.statesFilter().stream().map(s -> s.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
        Set<String> types = data.typesFilter().stream().map(s -> s.toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
        ListGroupsResponseData response = new ListGroupsResponseData();
        // As Kafka: DESCRIBE on the cluster lists every group, else only the groups the principal may DESCRIBE.
        boolean all = broker.authorizedQuietly(request, AclOperation.DESCRIBE, ResourceType.CLUSTER, Acls.CLUSTER_NAME);
        java.util.function.Predicate<String> visible = id -> all || broker.authorizedQuietly(request, AclOperation.DESCRIBE, ResourceType.GROUP, id);
        if (types.isEmpty() || types.contains("consumer")) {
            for (ConsumerGroup g : broker.groups().listConsumerGroups(broker.brokerId())) {
                if (visible.test(g.groupId()) && (states.isEmpty() || states.contains(g.stateName().toLowerCase(Locale.ROOT)))) {
                    response.groups().add(new ListGroupsResponseData.ListedGroup().setGroupId(g.groupId())
                            .setProtocolType("consumer").setGroupState(g.stateName()).setGroupType("consumer"));
                }
            }
        }
        if (!types.isEmpty() && !types.contains("classic")) {
            request.respond(response);
            return;
        }
        for (ClassicGroup g : broker.groups().listGroups(broker.brokerId())) {
            String state = g.state().toString();
            if (!visible.test(g.groupId()) || !states.isEmpty() && !states.contains(state.toLowerCase(Locale.ROOT))) {
                continue;
            }
            response.groups().add(new ListGroupsResponseData.ListedGroup().setGroupId(g.groupId())
                    .setProtocolType(g.protocolType() == null ? "" : g.protocolType()).setGroupState(state).setGroupType("classic"));
        }
        request.respond(response);
    }
}
