package dev.samsa.event;

/**
 * Something that happened in the cluster, with the fields a test or a history checker reads. The timeline stamps it
 * with the cluster time ({@link TimedEvent}).
 *
 * <p>Each event also reads as one line of text, {@link #type()} then {@link #details()}, which the timeline prints;
 * that text is what a human (and a seed replayed a week later) compares, so it does not change when fields are added.
 */
public sealed interface ClusterEvent permits
        // the cluster, its brokers and topics
        ClusterStarted, BrokerStarted, BrokerStopped, TopicCreated, PartitionsCreated, TopicDeleted,
        // security
        AuthenticationFailed, AuthorizationDenied,
        // replication
        LeaderChanged, IsrExpanded, IsrShrunk, HighWatermark, StaleLeaderAppend, Truncated, RetentionDeleted, Compacted,
        RecordsDeleted, RecordsAcknowledged, ReassignmentStarted, ReassignmentCompleted, ReassignmentCancelled, ReassignmentAbandoned,
        // faults
        FailuresScheduled, FaultInjected, ReplicationPaused, ReplicationResumed, BrokerLatency, BrokerIsolated,
        IsolationHealed, ClientConnectionsDropped, SaslSessionsExpired, CertificateRotated, RequestsIntercepted, InterceptionRemoved, TxnMarkersHeld,
        TxnMarkersReleased, TxnCoordinatorFaultArmed,
        // consumer groups and their coordinator
        GroupCreated, GroupRemoved, GroupStateChanged, RebalanceStarted, GenerationStarted, AssignmentDistributed, MemberJoined,
        MemberRemoved,
        MemberDisconnected, SessionRearmed, StaticMemberReplaced, CoordinatorLoaded, CoordinatorUnloaded,
        CoordinatorRecordSkipped, OffsetsExpiryFailed, OffsetsExpired,
        // transactions
        TxnStateChanged, TxnMarkerWritten {

    /**
     * The name the timeline prints: the record's name, except that a fault prints as FaultApplied or FaultHealed and
     * an unclean election as UncleanLeaderElected.
     */
    default String type() {
        return getClass().getSimpleName();
    }

    /** The fields as the timeline prints them after the type. */
    String details();
}
