package dev.samsa.bench;

import dev.samsa.KafkaCluster;
import java.util.Locale;

/**
 * A fresh cluster in a warm JVM: what {@code Lifecycle.PER_METHOD} costs each test. Not a test: surefire excludes
 * {@code **}{@code /bench/**}.
 *
 * <pre>
 * BENCH=WarmStartBenchmark bench/run.sh [clusters warmups brokers]   (defaults 200 50 3)
 * </pre>
 *
 * <p>Starts and closes {@code warmups} clusters of {@code brokers} brokers, uncounted, then {@code clusters} more,
 * timing {@code start()} (from {@code builder()}) and {@code close()} apart; prints min/median/p90/max of each.
 */
public final class WarmStartBenchmark {

    private WarmStartBenchmark() {
    }

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.log.dev.samsa", "warn");
        int clusters = NanoSamples.arg(args, 0, 200);
        int warmups = NanoSamples.arg(args, 1, 50);
        int brokers = NanoSamples.arg(args, 2, 3);
        System.out.printf(Locale.ROOT, "JVM %s, %d CPUs, %d clusters of %d brokers after %d warm-ups%n",
                Runtime.version(), Runtime.getRuntime().availableProcessors(), clusters, brokers, warmups);
        for (int i = 0; i < warmups; i++) {
            KafkaCluster.builder().brokers(brokers).seed(1).start().close();
        }
        long[] start = new long[clusters];
        long[] close = new long[clusters];
        for (int i = 0; i < clusters; i++) {
            long begin = System.nanoTime();
            KafkaCluster cluster = KafkaCluster.builder().brokers(brokers).seed(1).start();
            long started = System.nanoTime();
            cluster.close();
            long closed = System.nanoTime();
            start[i] = started - begin;
            close[i] = closed - started;
        }
        System.out.printf(Locale.ROOT, "start: %s%nclose: %s%n", NanoSamples.summary(start, 2),
                NanoSamples.summary(close, 2));
    }
}
