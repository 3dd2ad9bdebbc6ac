package dev.samsa.bench;

import dev.samsa.KafkaCluster;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Cluster start-up time and single-producer throughput. Not a test: surefire excludes {@code **}{@code /bench/**}.
 *
 * <p>Run it from the project directory, with only Maven and a JDK 17+:
 *
 * <pre>
 * bench/run.sh
 * </pre>
 *
 * which is the same as
 *
 * <pre>
 * mvn -B -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java $(sed -n 's:.*&lt;chronicle.jvm.flags&gt;\(.*\)&lt;/chronicle.jvm.flags&gt;.*:\1:p' pom.xml) -Xmx2g \
 *     -cp target/classes:target/test-classes:$(cat target/cp.txt) dev.samsa.bench.StartupAndProduceBenchmark
 * </pre>
 *
 * <p>Arguments, all optional: {@code startupRuns warmups records runs commitEvery} (defaults 20 3 200000 3 100);
 * {@code startupRuns} 0 skips the start-up figures.
 *
 * <p>What it measures:
 * <ul>
 *   <li>start-up: wall time from {@code KafkaCluster.builder()} until {@code start()} returns (close is not timed),
 *       median and min over {@code startupRuns} runs after {@code warmups} discarded ones, for 1 and 3 brokers;</li>
 *   <li>produce: one {@code KafkaProducer} sending {@code records} 1 KiB values to a 1-partition topic, linger.ms=5,
 *       batch.size=64 KiB, no compression, timed from the first send until {@code flush()} returns; records/s and
 *       MiB/s of values, {@code runs} times after one short warm-up; once on 1 broker with acks=1, once on 3 brokers
 *       with replication factor 3 and acks=all (idempotent);</li>
 *   <li>transactional produce: on that same 3-broker cluster, after each acks=all run, the same records sent by a
 *       transactional producer that commits every {@code commitEvery} records (each commit waits for the sends before
 *       it, as {@code commitTransaction()} does), timed from the first send until the last commit returns; records/s,
 *       MiB/s and commits/s, printed beside the acks=all figure of the same run.</li>
 * </ul>
 */
public final class StartupAndProduceBenchmark {

    private static final int RECORD_BYTES = 1024;

    private StartupAndProduceBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        // Before any logger exists: one "cluster started" INFO line per run would drown the figures.
        System.setProperty("org.slf4j.simpleLogger.log.dev.samsa", "warn");
        int startupRuns = arg(args, 0, 20);
        int warmups = arg(args, 1, 3);
        int records = arg(args, 2, 200_000);
        int runs = arg(args, 3, 3);
        int commitEvery = arg(args, 4, 100);

        System.out.printf(Locale.ROOT, "JVM %s, %d CPUs, max heap %d MiB%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);
        for (int brokers : startupRuns > 0 ? new int[] {1, 3} : new int[0]) {
            startup(brokers, warmups, startupRuns);
        }
        produce(1, 1, "1", records, runs, 0);
        produce(3, 3, "all", records, runs, commitEvery);
    }

    private static void startup(int brokers, int warmups, int runs) {
        for (int i = 0; i < warmups; i++) {
            startAndCloseMillis(brokers);
        }
        double[] millis = new double[runs];
        for (int i = 0; i < runs; i++) {
            millis[i] = startAndCloseMillis(brokers);
        }
        Arrays.sort(millis);
        double median = runs % 2 == 1 ? millis[runs / 2] : (millis[runs / 2 - 1] + millis[runs / 2]) / 2;
        System.out.printf(Locale.ROOT, "start-up, %d broker(s): median %.1f ms, min %.1f ms, max %.1f ms (%d runs after %d warm-ups)%n",
                brokers, median, millis[0], millis[runs - 1], runs, warmups);
    }

    /** Time until start() returns; the close that follows is not counted. */
    private static double startAndCloseMillis(int brokers) {
        long begin = System.nanoTime();
        KafkaCluster cluster = KafkaCluster.builder().brokers(brokers).seed(1).start();
        long end = System.nanoTime();
        cluster.close();
        return (end - begin) / 1e6;
    }

    /** With {@code commitEvery > 0}, each run is followed by a transactional run of the same size on the same cluster. */
    private static void produce(int brokers, int replicationFactor, String acks, int records, int runs, int commitEvery)
            throws Exception {
        double mib = (double) records * RECORD_BYTES / (1024 * 1024);
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(brokers).seed(1).start()) {
            produceOnce(cluster, "bench-warmup", replicationFactor, acks, Math.max(1, records / 10));
            if (commitEvery > 0) {
                produceTransactionally(cluster, "bench-tx-warmup", replicationFactor, Math.max(1, records / 10), commitEvery);
            }
            for (int run = 1; run <= runs; run++) {
                double seconds = produceOnce(cluster, "bench-" + run, replicationFactor, acks, records);
                System.out.printf(Locale.ROOT, "produce, %d broker(s), replication factor %d, acks=%s, run %d: %,d x 1 KiB in %.2f s: %,.0f records/s, %.1f MiB/s%n",
                        brokers, replicationFactor, acks, run, records, seconds, records / seconds, mib / seconds);
                if (commitEvery > 0) {
                    seconds = produceTransactionally(cluster, "bench-tx-" + run, replicationFactor, records, commitEvery);
                    int commits = (records + commitEvery - 1) / commitEvery;
                    System.out.printf(Locale.ROOT, "produce, %d broker(s), replication factor %d, transactional, a commit every %d records, run %d: %,d x 1 KiB in %.2f s: %,.0f records/s, %.1f MiB/s, %,.0f commits/s%n",
                            brokers, replicationFactor, commitEvery, run, records, seconds, records / seconds, mib / seconds,
                            commits / seconds);
                }
            }
        }
    }

    /** @return seconds from the first send until every record is acknowledged */
    private static double produceOnce(KafkaCluster cluster, String topic, int replicationFactor, String acks, int records)
            throws Exception {
        cluster.createTopic(topic, 1, replicationFactor);
        Map<String, Object> config = producerConfig(cluster);
        config.put("acks", acks);
        config.put("enable.idempotence", Boolean.toString(acks.equals("all")));
        byte[] value = value();
        AtomicLong acknowledged = new AtomicLong();
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            producer.partitionsFor(topic); // metadata fetched before the clock starts
            long begin = System.nanoTime();
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, value), (metadata, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    } else {
                        acknowledged.incrementAndGet();
                    }
                });
            }
            producer.flush();
            long end = System.nanoTime();
            if (failure.get() != null) {
                throw new IllegalStateException("A send to " + topic + " failed", failure.get());
            }
            if (acknowledged.get() != records) {
                throw new IllegalStateException(acknowledged.get() + " of " + records + " records acknowledged");
            }
            return (end - begin) / 1e9;
        }
    }

    /** @return seconds from the first send until the last commit returns */
    private static double produceTransactionally(KafkaCluster cluster, String topic, int replicationFactor, int records,
                                                 int commitEvery) {
        cluster.createTopic(topic, 1, replicationFactor);
        Map<String, Object> config = producerConfig(cluster);
        config.put("transactional.id", topic);
        byte[] value = value();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            producer.initTransactions(); // coordinator found and producer id fetched before the clock starts
            producer.partitionsFor(topic);
            long begin = System.nanoTime();
            for (int first = 0; first < records; first += commitEvery) {
                producer.beginTransaction();
                for (int i = first; i < Math.min(records, first + commitEvery); i++) {
                    producer.send(new ProducerRecord<>(topic, 0, null, value));
                }
                // Fails if any send of the transaction failed, so every record counted was committed.
                producer.commitTransaction();
            }
            return (System.nanoTime() - begin) / 1e9;
        }
    }

    private static Map<String, Object> producerConfig(KafkaCluster cluster) {
        Map<String, Object> config = cluster.producerConfig();
        config.put("key.serializer", ByteArraySerializer.class.getName());
        config.put("value.serializer", ByteArraySerializer.class.getName());
        config.put("linger.ms", "5");
        config.put("batch.size", Integer.toString(64 * 1024));
        config.put("compression.type", "none");
        return config;
    }

    private static byte[] value() {
        byte[] value = new byte[RECORD_BYTES];
        Arrays.fill(value, (byte) 'v');
        return value;
    }

    private static int arg(String[] args, int index, int defaultValue) {
        return args.length > index ? Integer.parseInt(args[index]) : defaultValue;
    }
}
