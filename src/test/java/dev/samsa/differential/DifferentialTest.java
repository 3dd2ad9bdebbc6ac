package dev.samsa.differential;

import java.util.List;

/** The differential suite on one broker: the whole catalogue of {@link Scenarios}. */
class DifferentialTest extends DifferentialSuite {

    @Override
    int brokers() {
        return 1;
    }

    @Override
    List<Scenario> catalogue() {
        return Scenarios.all();
    }

    @Override
    String reportName() {
        return "single-broker";
    }
}
