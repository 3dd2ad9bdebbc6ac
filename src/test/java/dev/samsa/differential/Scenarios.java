package dev.samsa.differential;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The catalogue: every scenario of every area, each name once. */
final class Scenarios {

    private Scenarios() {
    }

    static List<Scenario> all() {
        List<Scenario> all = new ArrayList<>();
        all.addAll(ProduceScenarios.all());
        all.addAll(TransactionScenarios.all());
        all.addAll(GroupScenarios.all());
        all.addAll(AdminScenarios.all());
        all.addAll(LogAndTimerScenarios.all());
        Set<String> names = new HashSet<>();
        for (Scenario s : all) {
            if (!names.add(s.name())) {
                throw new IllegalStateException("Two scenarios are named " + s.name());
            }
        }
        return all;
    }
}
