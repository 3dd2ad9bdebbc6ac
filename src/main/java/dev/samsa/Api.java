package dev.samsa;

/**
 * A Kafka API, named as Kafka names it (ApiKeys), for fault injection such as
 * {@code cluster.faults().failNext(Api.PRODUCE, KafkaError.NOT_LEADER_OR_FOLLOWER, 3)} and for the requests a
 * {@link RequestInterceptor} sees.
 */
public enum Api {
    PRODUCE,
    FETCH,
    LIST_OFFSETS,
    METADATA,
    OFFSET_COMMIT,
    OFFSET_FETCH,
    FIND_COORDINATOR,
    JOIN_GROUP,
    HEARTBEAT,
    LEAVE_GROUP,
    SYNC_GROUP,
    DESCRIBE_GROUPS,
    LIST_GROUPS,
    API_VERSIONS,
    CREATE_TOPICS,
    DELETE_TOPICS,
    DELETE_RECORDS,
    INIT_PRODUCER_ID,
    OFFSET_FOR_LEADER_EPOCH,
    ADD_PARTITIONS_TO_TXN,
    ADD_OFFSETS_TO_TXN,
    END_TXN,
    WRITE_TXN_MARKERS,
    TXN_OFFSET_COMMIT,
    DESCRIBE_CONFIGS,
    ALTER_CONFIGS,
    DESCRIBE_LOG_DIRS,
    CREATE_PARTITIONS,
    DELETE_GROUPS,
    ELECT_LEADERS,
    INCREMENTAL_ALTER_CONFIGS,
    ALTER_PARTITION_REASSIGNMENTS,
    LIST_PARTITION_REASSIGNMENTS,
    OFFSET_DELETE,
    DESCRIBE_CLIENT_QUOTAS,
    ALTER_CLIENT_QUOTAS,
    DESCRIBE_CLUSTER,
    DESCRIBE_PRODUCERS,
    DESCRIBE_TRANSACTIONS,
    LIST_TRANSACTIONS,
    CONSUMER_GROUP_HEARTBEAT,
    CONSUMER_GROUP_DESCRIBE,
    DESCRIBE_TOPIC_PARTITIONS,
    SASL_HANDSHAKE,
    SASL_AUTHENTICATE,
    DESCRIBE_USER_SCRAM_CREDENTIALS,
    ALTER_USER_SCRAM_CREDENTIALS,
    DESCRIBE_ACLS,
    CREATE_ACLS,
    DELETE_ACLS;

    /** The same constant in kafka-clients, for the code that talks to clients; not part of the public API. */
    org.apache.kafka.common.protocol.ApiKeys toApiKey() {
        return org.apache.kafka.common.protocol.ApiKeys.valueOf(name());
    }

    /** @throws IllegalArgumentException for an API this enum does not name (every API a broker serves has a name here) */
    static Api of(org.apache.kafka.common.protocol.ApiKeys apiKey) {
        return valueOf(apiKey.name());
    }
}
