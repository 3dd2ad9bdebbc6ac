package dev.samsa.junit;

import dev.samsa.KafkaCluster;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A started cluster as kept in the extension's store: closing it closes the cluster and gives the bootstrap system
 * properties their previous values back.
 *
 * <p>The system properties are the one JVM-wide thing the extension touches. Each is written when a cluster starts
 * (last writer wins) and restored on close only if it still holds this cluster's value, atomically, so a cluster
 * that closes never overwrites the value of one started after it.
 */
@SuppressWarnings("deprecation") // CloseableResource: JUnit before 5.13 closes only those; later versions any AutoCloseable
final class RunningCluster implements AutoCloseable, ExtensionContext.Store.CloseableResource {

    static final String[] SYSTEM_PROPERTIES = {
        EmbeddedKafkaCluster.SPRING_BOOTSTRAP_SERVERS_PROPERTY, EmbeddedKafkaCluster.BOOTSTRAP_SERVERS_PROPERTY,
    };

    private final KafkaCluster cluster;
    private final String bootstrapServers;
    /** Values before this cluster set them; null where a property was absent. */
    private final Map<String, String> previous = new LinkedHashMap<>();
    private boolean closed;

    private RunningCluster(KafkaCluster cluster) {
        this.cluster = cluster;
        this.bootstrapServers = cluster.bootstrapServers();
    }

    static RunningCluster start(ClusterSpec spec) {
        RunningCluster running = new RunningCluster(spec.start());
        for (String name : SYSTEM_PROPERTIES) {
            running.previous.put(name, System.setProperty(name, running.bootstrapServers));
        }
        return running;
    }

    KafkaCluster cluster() {
        return cluster;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            cluster.close();
        } finally {
            Properties properties = System.getProperties();
            previous.forEach((name, value) -> {
                if (value == null) {
                    properties.remove(name, bootstrapServers);
                } else {
                    properties.replace(name, bootstrapServers, value);
                }
            });
        }
    }

    @Override
    public String toString() {
        return "Samsa cluster at " + bootstrapServers + (closed ? " (closed)" : "");
    }
}
