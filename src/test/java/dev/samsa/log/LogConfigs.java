package dev.samsa.log;

import dev.samsa.cluster.BrokerConfigs;
import dev.samsa.cluster.TopicConfigs;
import java.util.Map;

/** Log configs for tests that open a log without a cluster, taken from the one copy of Kafka's defaults. */
public final class LogConfigs {

    private LogConfigs() {
    }

    /** What a topic with no overrides gets on a broker with no configs. */
    public static LogConfig defaults() {
        return TopicConfigs.effective(Map.of(), new BrokerConfigs(Map.of(), Map.of())).logConfig();
    }
}
