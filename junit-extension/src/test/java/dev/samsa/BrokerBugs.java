package dev.samsa;

/** Reaches the cluster's package-private fault that plays a broker-side bug, for the extension's own tests. */
public final class BrokerBugs {

    private BrokerBugs() {
    }

    /** The next Produce request meets {@code error} on its connection's reader thread. */
    public static void failNextProduce(KafkaCluster cluster, Error error) {
        cluster.faults().failNextUnexpectedly(Api.PRODUCE, error);
    }
}
