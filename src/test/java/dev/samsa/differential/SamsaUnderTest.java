package dev.samsa.differential;

import dev.samsa.KafkaCluster;
import java.util.Map;

/** Samsa as a differential target: a cluster on the system clock, with the suite's shared broker configs. */
final class SamsaUnderTest implements ClusterUnderTest {

    private final KafkaCluster cluster;

    SamsaUnderTest(int brokers, Map<String, String> brokerConfigs) {
        KafkaCluster.Builder builder = KafkaCluster.builder().brokers(brokers);
        brokerConfigs.forEach(builder::brokerConfig);
        this.cluster = builder.start();
    }

    @Override
    public String name() {
        return "samsa";
    }

    @Override
    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    @Override
    public int brokers() {
        return cluster.brokers().size();
    }

    @Override
    public void stopBroker(int id) {
        cluster.broker(id).shutdown();
    }

    @Override
    public void killBroker(int id) {
        cluster.broker(id).crash();
    }

    @Override
    public void restartBroker(int id) {
        cluster.broker(id).restart();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
