package dev.samsa.cluster;

import dev.samsa.event.Timeline;
import dev.samsa.log.store.MappedStores;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/** A ClusterMetadata of three brokers with no loop and no network, for the config classes' unit tests. */
final class ConfigFixture {

    private ConfigFixture() {
    }

    /** Brokers 1-3, each with its broker.id and {@code staticConfigs}, sharing one map of cluster-wide defaults. */
    static ClusterMetadata threeBrokers(Path dir, Map<String, String> staticConfigs) {
        ClusterMetadata metadata = new ClusterMetadata(dir, MappedStores.detect(), new Random(0),
                new Timeline(() -> 0L, () -> 0L), () -> 0L);
        Map<String, String> clusterDefaults = new HashMap<>();
        for (int id = 1; id <= 3; id++) {
            Map<String, String> configs = new LinkedHashMap<>(staticConfigs);
            configs.put("broker.id", Integer.toString(id));
            metadata.registerBroker(new BrokerInfo(id, "127.0.0.1", 0, null), new BrokerConfigs(configs, clusterDefaults));
        }
        return metadata;
    }
}
