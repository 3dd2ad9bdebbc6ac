package dev.samsa.handler;

/** What the ACL handlers share with the handlers that check ACLs. */
final class Acls {

    /** The name of the one CLUSTER resource (Kafka's CLUSTER_NAME). */
    static final String CLUSTER_NAME = "kafka-cluster";

    private Acls() {
    }
}
