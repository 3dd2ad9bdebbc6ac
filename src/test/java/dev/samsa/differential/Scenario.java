package dev.samsa.differential;

/**
 * One differential scenario, written once against {@link ScenarioContext} and run on every target. Its name is unique
 * in the catalogue and names its topics, groups and transactional ids, the same on every target, so that names seen in
 * the observation compare equal.
 *
 * @param slow a scenario of several seconds of real timers: run only with -Dsamsa.differential.slow=true
 */
record Scenario(String name, boolean slow, Body body) {

    @FunctionalInterface
    interface Body {
        void run(ScenarioContext c) throws Exception;
    }

    static Scenario of(String name, Body body) {
        return new Scenario(name, false, body);
    }

    static Scenario slow(String name, Body body) {
        return new Scenario(name, true, body);
    }

    @Override
    public String toString() {
        return name;
    }
}
