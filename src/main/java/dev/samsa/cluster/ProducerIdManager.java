package dev.samsa.cluster;

/**
 * Hands out producer ids. Ids are taken in blocks whose end is stored with the cluster metadata, so a cluster
 * reopened on the same directory never reuses an id that its logs still remember.
 */
public final class ProducerIdManager {

    static final long BLOCK_SIZE = 1000;
    private static final String KEY = "producer.id.block.end";

    private final ClusterMetadata metadata;
    private long next;
    private long blockEnd;

    public ProducerIdManager(ClusterMetadata metadata) {
        this.metadata = metadata;
        String stored = metadata.clusterProperty(KEY);
        this.next = stored == null ? 0 : Long.parseLong(stored);
        this.blockEnd = next;
    }

    public long nextProducerId() {
        if (next >= blockEnd) {
            blockEnd = next + BLOCK_SIZE;
            metadata.storeClusterProperty(KEY, Long.toString(blockEnd));
        }
        return next++;
    }
}
