package dev.samsa.differential;

import java.util.List;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The differential suite on three brokers (Kafka: three combined KRaft nodes, a JVM each): {@link ReplicationScenarios}.
 * Its broker stops and restarts take Kafka tens of seconds, so it runs only with -Dsamsa.differential.brokers3=true.
 */
@EnabledIfSystemProperty(named = "samsa.differential.brokers3", matches = "true")
class ReplicatedDifferentialTest extends DifferentialSuite {

    @Override
    int brokers() {
        return 3;
    }

    @Override
    List<Scenario> catalogue() {
        return ReplicationScenarios.all();
    }

    @Override
    String reportName() {
        return "three-brokers";
    }
}
