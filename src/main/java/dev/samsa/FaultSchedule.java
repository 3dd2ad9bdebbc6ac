package dev.samsa;

import dev.samsa.cluster.ClusterState;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.Topic;
import dev.samsa.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Collectors;

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

    /** The faults a schedule draws from. */
    public enum Kind {
        /** {@link Broker#crash()}, restarted when it ends. */
        CRASH,
        /** {@link Broker#powerLoss()}, restarted when it ends. */
        POWER_LOSS,
        /** {@link Broker#isolate()}, healed when it ends. */
        ISOLATION,
        /** Replication paused to every follower replica the broker holds, resumed when it ends. */
        PAUSED_REPLICATION
    }

    /** One fault: {@code atMs} after the start, on {@code brokerId}, for {@code durationMs}. */
    public record Step(long atMs, Kind kind, int brokerId, long durationMs) {
        @Override
        public String toString() {
            return "+" + atMs + "ms " + kind + " broker " + brokerId + " for " + durationMs + "ms";
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

    /** Prints the schedule, then runs it on {@code cluster} from now; close the run to heal what is still applied. */
    public Run start(KafkaCluster cluster) {
        System.out.println(this);
        return new Run(cluster);
    }

    /** A schedule running on a cluster. */
    public final class Run implements AutoCloseable {

        private final KafkaCluster cluster;
        private final ClusterState state;
        private final String keyPrefix = "fault-schedule-" + System.identityHashCode(this) + "-";
        private Step applied;
        private final List<Partition> paused = new ArrayList<>();
        private int finished;

        private Run(KafkaCluster cluster) {
            this.cluster = cluster;
            this.state = cluster.state();
            state.loop().call(() -> {
                Scheduler scheduler = state.loop().scheduler();
                for (int i = 0; i < steps.size(); i++) {
                    Step step = steps.get(i);
                    scheduler.scheduleAfter(keyPrefix + i + "-apply", step.atMs(), () -> apply(step));
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
                    for (Topic topic : state.metadata().topics()) {
                        if (org.apache.kafka.common.internals.Topic.isInternal(topic.name())) {
                            continue;
                        }
                        for (Partition p : topic.partitions()) {
                            if (p.replicas().contains(step.brokerId()) && p.leader() != step.brokerId()) {
                                cluster.faults().pauseReplication(topic.name(), p.index(), step.brokerId());
                                paused.add(p);
                            }
                        }
                    }
                }
            }
        }

        private void heal() {
            finished++;
            Step step = applied;
            applied = null;
            if (step == null) {
                return;
            }
            Broker broker = cluster.broker(step.brokerId());
            switch (step.kind()) {
                case CRASH, POWER_LOSS -> {
                    if (!broker.isRunning()) {
                        broker.restart();
                    }
                }
                case ISOLATION -> {
                    if (broker.isRunning()) {
                        broker.heal();
                    }
                }
                case PAUSED_REPLICATION -> {
                    for (Partition p : paused) {
                        if (state.metadata().partition(p.topicPartition()) != null) {
                            cluster.faults().resumeReplication(p.topic().name(), p.index(), step.brokerId());
                        }
                    }
                    paused.clear();
                }
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

        /** No fault starts or lasts past this much time from the start. */
        public Builder length(Duration total) {
            this.length = Objects.requireNonNull(total);
            return this;
        }

        public FaultSchedule build() {
            if (brokers < 1 || minGap.compareTo(maxGap) > 0 || minDuration.compareTo(maxDuration) > 0 || minDuration.isZero()) {
                throw new IllegalArgumentException("Need brokers >= 1, min <= max and a positive duration");
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
                steps.add(new Step(at, choices.get(random.nextInt(choices.size())), 1 + random.nextInt(brokers), duration));
                at += duration + between(random, minGap, maxGap);
            }
            return new FaultSchedule(seed, steps);
        }

        private static long between(SplittableRandom random, Duration min, Duration max) {
            return min.toMillis() + (long) (random.nextDouble() * (max.toMillis() - min.toMillis() + 1));
        }
    }
}
