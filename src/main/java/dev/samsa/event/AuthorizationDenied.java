package dev.samsa.event;

/**
 * The authorizer refused a request something it asked for by name (Kafka's audit log entry "Principal = ... is Denied
 * operation = ..."). Each distinct denial (principal, operation, resource, API) is recorded once until the ACLs next
 * change, so a client retrying in a loop adds one event, not thousands. Filters that only hide what the principal may
 * not see (Metadata of all topics, ListGroups) are not denials, as in Kafka's audit log.
 *
 * @param principal "User:alice", "User:ANONYMOUS" on a PLAINTEXT listener
 * @param operation as Kafka names ACL operations: READ, WRITE, DESCRIBE, IDEMPOTENT_WRITE, ...
 * @param resourceType TOPIC, GROUP, CLUSTER or TRANSACTIONAL_ID
 * @param api the request's API key name, e.g. FETCH, JOIN_GROUP
 */
public record AuthorizationDenied(int brokerId, String principal, String operation, String resourceType,
                                  String resourceName, String api) implements ClusterEvent {

    @Override
    public String details() {
        return "broker=" + brokerId + " principal=" + principal + " operation=" + operation + " resource="
                + resourceType + ":" + resourceName + " api=" + api;
    }
}
