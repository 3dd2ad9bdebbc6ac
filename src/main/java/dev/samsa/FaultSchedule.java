package dev.samsa;

import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Partition;
import dev.samsa.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fault schedule drawn from a seed: one broker at a time, a fault of one of the chosen kinds lasting a random
 * duration, then healed, then a random gap, until the total length. The same seed and knobs give the same schedule,
 * so a failing run is replayed by its seed. It runs in cluster time on the cluster's own timers, so on a manual clock
 * it moves as the test advances the clock and on the system clock in wall time, while the test drives its clients:
 *
 * <pre>{@code
 * FaultSchedule schedule = FaultSchedule.seeded(42).length(Duration.ofSeconds(10)).build();
 * try (FaultSchedule.Run run = schedule.start(cluster)) { ... produce and consume ... }   // healed at close
 * }</pre>
 */
public final class FaultSchedule {

    private static final Logger LOG = LoggerFactory.getLogger(FaultSchedule.class);

    /** The faults a schedule draws from. */
    public enum Kind {
        /** {@link Broker#crash()}, restarted when it ends. */
        CRASH,
        /** {@link Broker#powerLoss()}, restarted when it ends. */
        POWER_LOSS,
        /** {@link Broker#isolate()}, healed when it ends. */
        ISOLATION,
        /** Replication paused to every follower replica the broker holds, resumed when it ends. */
        PAUSED_REPLICATION,
        /**
         * The way acks=1 loses data in Kafka: replication from the broker to the followers of every partition it leads
         * is paused for the step's lag, then the broker crashes and replication resumes. If the broker leads no
         * partition when the step starts, the broker leading the most takes its place. A lag shorter than
         * {@code replica.lag.time.max.ms} keeps the followers in the ISR, so the controller elects one of them, without
         * the records the crashed leader acknowledged alone; the broker restarts when the step ends and truncates them.
         */
        LAGGING_LEADER_FAILURE
    }

    /**
     * One fault: {@code atMs} after the start, on {@code brokerId}, for {@code durationMs}; for
     * {@link Kind#LAGGING_LEADER_FAILURE} the broker fails {@code lagMs} into the step (0 for the other kinds).
     */
    public record Step(long atMs, Kind kind, int brokerId, long durationMs, long lagMs) {
        @Override
        public String toString() {
            return "+" + atMs + "ms " + kind + " broker " + brokerId + " for " + durationMs + "ms"
                    + (lagMs > 0 ? " (its followers lag " + lagMs + "ms before it crashes)" : "");
        }
    }

    private final long seed;
    private final List<Step> steps;

    private FaultSchedule(long seed, List<Step> steps) {
        this.seed = seed;
        this.steps = List.copyOf(steps);
    }

    /** Knobs for a schedule drawn from {@code seed}. */
    public static Builder seeded(long seed) {
        return new Builder(seed);
    }

    public long seed() {
        return seed;
    }

    public List<Step> steps() {
        return steps;
    }

    /** The schedule as it prints before it runs: its seed, then one line per fault. */
    @Override
    public String toString() {
        return "fault schedule seed=" + seed + " (" + steps.size() + " faults)"
                + steps.stream().map(s -> "\n  " + s).collect(Collectors.joining());
    }

    /** Logs the schedule, then runs it on {@code cluster} from now; close the run to heal what is still applied. */
    public Run start(KafkaCluster cluster) {
        LOG.info("{}", this);
        return new Run(cluster);
    }

    /** A schedule running on a cluster. */
    public final class Run implements AutoCloseable {

        private final KafkaCluster cluster;
        private final ClusterState state;
        private final String keyPrefix = "fault-schedule-" + System.identityHashCode(this) + "-";
        private Step applied;
        /** The broker a {@link Kind#LAGGING_LEADER_FAILURE} step picked, to crash at the end of the lag and restart. */
        private int laggingLeader;
        /** Replication paused by the applied step: follower id of each partition. */
        private final List<Map.Entry<Partition, Integer>> paused = new ArrayList<>();
        private int finished;

        private Run(KafkaCluster cluster) {
            this.cluster = cluster;
            this.state = cluster.state();
            state.loop().call(() -> {
                Scheduler scheduler = state.loop().scheduler();
                for (int i = 0; i < steps.size(); i++) {
                    Step step = steps.get(i);
                    scheduler.scheduleAfter(keyPrefix + i + "-apply", step.atMs(), () -> apply(step));
                    if (step.kind() == Kind.LAGGING_LEADER_FAILURE) {
                        scheduler.scheduleAfter(keyPrefix + i + "-fail", step.atMs() + step.lagMs(), () -> failLaggingLeader(step));
                    }
                    scheduler.scheduleAfter(keyPrefix + i + "-heal", step.atMs() + step.durationMs(), this::heal);
                }
                return null;
            });
        }

        /** Whether every fault of the schedule has been applied and healed. */
        public boolean finished() {
            return state.loop().call(() -> finished == steps.size());
        }

        private void apply(Step step) {
            Broker broker = cluster.broker(step.brokerId());
            if (!broker.isRunning()) {
                return; // stopped by the test meanwhile: nothing to apply it to
            }
            applied = step;
            switch (step.kind()) {
                case CRASH -> broker.crash();
                case POWER_LOSS -> broker.powerLoss();
                case ISOLATION -> broker.isolate();
                case PAUSED_REPLICATION -> {
                    for (Partition p : userPartitions()) {
                        if (p.replicas().contains(step.brokerId()) && p.leader() != step.brokerId()) {
                            pause(p, step.brokerId());
                        }
                    }
                }
                case LAGGING_LEADER_FAILURE -> {
                    int leader = laggingLeader(step.brokerId());
                    laggingLeader = leader;
                    for (Partition p : userPartitions()) {
                        if (p.leader() == leader) {
                            p.replicas().stream().filter(r -> r != leader).forEach(f -> pause(p, f));
                        }
                    }
                }
            }
        }

        /**
         * The step's broker if it leads a partition now, else the broker leading the most (the lowest id of equals):
         * earlier faults move leaders, and a step on a broker that leads nothing would only be a crash.
         */
        private int laggingLeader(int brokerId) {
            Map<Integer, Long> led = new TreeMap<>();
            userPartitions().stream().filter(p -> p.leader() > 0).forEach(p -> led.merge(p.leader(), 1L, Long::sum));
            if (led.containsKey(brokerId) || led.isEmpty()) {
                return brokerId;
            }
            return led.entrySet().stream().max(Map.Entry.<Integer, Long>comparingByValue()
                    .thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder()))).orElseThrow().getKey();
        }

        private List<Partition> userPartitions() {
            return state.metadata().topics().stream()
                    .filter(t -> !org.apache.kafka.common.internals.Topic.isInternal(t.name()))
                    .flatMap(t -> t.partitions().stream()).toList();
        }

        private void pause(Partition p, int follower) {
            cluster.faults().pauseReplication(p.topic().name(), p.index(), follower);
            paused.add(Map.entry(p, follower));
        }

        /** The end of a lagging leader's lag: it crashes, and its followers, still in the ISR, replicate again. */
        private void failLaggingLeader(Step step) {
            if (applied != step) {
                return;
            }
            Broker broker = cluster.broker(laggingLeader);
            if (broker.isRunning()) {
                broker.crash();
            }
            resumePaused();
        }

        private void resumePaused() {
            for (Map.Entry<Partition, Integer> e : paused) {
                Partition p = e.getKey();
                if (state.metadata().partition(p.topicPartition()) != null) {
                    cluster.faults().resumeReplication(p.topic().name(), p.index(), e.getValue());
                }
            }
            paused.clear();
        }

        private void heal() {
            finished++;
            Step step = applied;
            applied = null;
            if (step == null) {
                return;
            }
            Broker broker = cluster.broker(step.kind() == Kind.LAGGING_LEADER_FAILURE ? laggingLeader : step.brokerId());
            switch (step.kind()) {
                case CRASH, POWER_LOSS, LAGGING_LEADER_FAILURE -> {
                    resumePaused();
                    if (!broker.isRunning()) {
                        broker.restart();
                    }
                }
                case ISOLATION -> {
                    if (broker.isRunning()) {
                        broker.heal();
                    }
                }
                case PAUSED_REPLICATION -> resumePaused();
            }
        }

        /** Cancels the faults not yet applied and heals the one applied now, if any. */
        @Override
        public void close() {
            state.loop().call(() -> {
                Scheduler scheduler = state.loop().scheduler();
                for (int i = 0; i < steps.size(); i++) {
                    scheduler.cancel(keyPrefix + i + "-apply");
                    scheduler.cancel(keyPrefix + i + "-heal");
                    scheduler.cancel(keyPrefix + i + "-fail");
                }
                heal();
                finished = steps.size();
                return null;
            });
        }
    }

    /** The knobs of a seeded schedule; each has a default that makes a short, busy schedule. */
    public static final class Builder {
        private final long seed;
        private Set<Kind> kinds = EnumSet.allOf(Kind.class);
        private int brokers = 3;
        private Duration minGap = Duration.ofMillis(100);
        private Duration maxGap = Duration.ofMillis(500);
        private Duration minDuration = Duration.ofMillis(100);
        private Duration maxDuration = Duration.ofMillis(1000);
        private Duration length = Duration.ofSeconds(10);
        private Duration minLag = Duration.ofMillis(50);
        private Duration maxLag = Duration.ofMillis(200);

        private Builder(long seed) {
            this.seed = seed;
        }

        public Builder kinds(Kind first, Kind... more) {
            this.kinds = EnumSet.of(first, more);
            return this;
        }

        /** The brokers to pick from, ids 1 to {@code count} (default 3). */
        public Builder brokers(int count) {
            this.brokers = count;
            return this;
        }

        /** Time between a fault's heal and the next fault. */
        public Builder gap(Duration min, Duration max) {
            this.minGap = Objects.requireNonNull(min);
            this.maxGap = Objects.requireNonNull(max);
            return this;
        }

        /** How long each fault lasts. */
        public Builder duration(Duration min, Duration max) {
            this.minDuration = Objects.requireNonNull(min);
            this.maxDuration = Objects.requireNonNull(max);
            return this;
        }

        /**
         * How long a {@link Kind#LAGGING_LEADER_FAILURE} lets the followers fall behind before the leader crashes
         * (default 50 to 200 ms, never as long as the step). Keep it below the cluster's
         * {@code replica.lag.time.max.ms}, or the followers leave the ISR and nothing is lost.
         */
        public Builder lag(Duration min, Duration max) {
            this.minLag = Objects.requireNonNull(min);
            this.maxLag = Objects.requireNonNull(max);
            return this;
        }

        /** No fault starts or lasts past this much time from the start. */
        public Builder length(Duration total) {
            this.length = Objects.requireNonNull(total);
            return this;
        }

        public FaultSchedule build() {
            if (brokers < 1 || minGap.compareTo(maxGap) > 0 || minDuration.compareTo(maxDuration) > 0 || minDuration.isZero()
                    || minLag.compareTo(maxLag) > 0 || minLag.isZero()) {
                throw new IllegalArgumentException("Need brokers >= 1, min <= max, a positive duration and a positive lag");
            }
            // SplittableRandom mixes its seed: neighbouring seeds (1, 2, 3...) give unrelated schedules.
            SplittableRandom random = new SplittableRandom(seed);
            List<Kind> choices = List.copyOf(kinds);
            List<Step> steps = new ArrayList<>();
            long at = between(random, minGap, maxGap);
            while (true) {
                long duration = between(random, minDuration, maxDuration);
                if (at + duration > length.toMillis()) {
                    break;
                }
                Kind kind = choices.get(random.nextInt(choices.size()));
                int broker = 1 + random.nextInt(brokers);
                long lag = kind == Kind.LAGGING_LEADER_FAILURE
                        ? Math.max(1, Math.min(between(random, minLag, maxLag), duration - 1)) : 0;
                steps.add(new Step(at, kind, broker, duration, lag));
                at += duration + between(random, minGap, maxGap);
            }
            return new FaultSchedule(seed, steps);
        }

        private static long between(SplittableRandom random, Duration min, Duration max) {
            return min.toMillis() + (long) (random.nextDouble() * (max.toMillis() - min.toMillis() + 1));
        }
    }
}
