package dev.samsa.bench;

import dev.samsa.KafkaCluster;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * End-to-end latency, shaped like Kafka's own {@code kafka-e2e-latency} tool ({@code EndToEndLatency}): one record at a
 * time, {@code send().get()} (linger.ms=0), then the consumer (fetch.max.wait.ms=0, assigned, no group) polls until it
 * has the record. Not a test: surefire excludes {@code **}{@code /bench/**}.
 *
 * <pre>
 * BENCH=LatencyBenchmark bench/run.sh [records runs warmupRecords recordBytes]   (defaults 5000 5 2000 100)
 * </pre>
 *
 * <p>For 1 broker (acks=1) and 3 brokers (replication factor 3, min.insync.replicas=2, acks=all, idempotent), each run
 * prints p50/p99/p99.9/max of produce-to-ack (send until get() returns) and produce-to-consume (send until poll()
 * hands the record over), in milliseconds, the cluster loop's CPU time and allocation per record (the broker's
 * work, which a noisy machine does not blur) and the JVM's garbage collections during the run; then min/median/max over the runs of each p99. A warm-up of
 * {@code warmupRecords} on the same cluster comes first and is not counted.
 */
public final class LatencyBenchmark {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private LatencyBenchmark() {
    }

    /** The one cluster loop running (each measurement has one cluster): its CPU and allocation are the broker's work. */
    private static long loopThreadId() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().matches("samsa-\\d+-loop"))
                .findFirst().orElseThrow().getId();
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.log.dev.samsa", "warn");
        int records = arg(args, 0, 5_000);
        int runs = arg(args, 1, 5);
        int warmup = arg(args, 2, 2_000);
        int recordBytes = arg(args, 3, 100);
        System.out.printf(Locale.ROOT, "JVM %s, %d CPUs, max heap %d MiB, %d records of %d bytes per run%n",
                Runtime.version(), Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
                records, recordBytes);
        measure(1, "1", records, runs, warmup, recordBytes);
        measure(3, "all", records, runs, warmup, recordBytes);
    }

    private static void measure(int brokers, String acks, int records, int runs, int warmup, int recordBytes)
            throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(brokers).seed(1)
                .brokerConfig("min.insync.replicas", Integer.toString(Math.min(2, brokers))).start()) {
            String topic = "latency";
            cluster.createTopic(topic, 1, brokers);
            TopicPartition tp = new TopicPartition(topic, 0);
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig(cluster, acks));
                 KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig(cluster))) {
                consumer.assign(List.of(tp));
                consumer.seekToEnd(List.of(tp));
                consumer.position(tp);
                byte[] value = new byte[recordBytes];
                roundTrips(producer, consumer, topic, value, warmup);
                double[] ackP99 = new double[runs];
                double[] e2eP99 = new double[runs];
                long loopId = loopThreadId();
                for (int run = 0; run < runs; run++) {
                    long cpuBefore = THREADS.getThreadCpuTime(loopId);
                    long allocatedBefore = THREADS.getThreadAllocatedBytes(loopId);
                    long[] gcBefore = gcCountAndMillis();
                    long[][] nanos = roundTrips(producer, consumer, topic, value, records);
                    long loopCpu = THREADS.getThreadCpuTime(loopId) - cpuBefore;
                    long loopAllocated = THREADS.getThreadAllocatedBytes(loopId) - allocatedBefore;
                    long[] gcAfter = gcCountAndMillis();
                    ackP99[run] = percentile(nanos[0], 0.99);
                    e2eP99[run] = percentile(nanos[1], 0.99);
                    System.out.printf(Locale.ROOT, "%d broker(s), acks=%s, run %d: produce-to-ack %s; produce-to-consume %s; "
                                    + "cluster loop per record: %.1f us CPU, %,d bytes allocated; GC (whole JVM): %d "
                                    + "collections, %d ms%n",
                            brokers, acks, run + 1, summary(nanos[0]), summary(nanos[1]), loopCpu / 1e3 / records,
                            loopAllocated / records, gcAfter[0] - gcBefore[0], gcAfter[1] - gcBefore[1]);
                }
                System.out.printf(Locale.ROOT, "%d broker(s), acks=%s, p99 over %d runs: produce-to-ack %s; produce-to-consume %s%n",
                        brokers, acks, runs, minMedianMax(ackP99), minMedianMax(e2eP99));
            }
        }
    }

    /** @return nanoseconds to ack [0] and to consume [1] of each record, sorted */
    private static long[][] roundTrips(KafkaProducer<byte[], byte[]> producer, KafkaConsumer<byte[], byte[]> consumer,
                                       String topic, byte[] value, int records) throws Exception {
        long[] ack = new long[records];
        long[] e2e = new long[records];
        for (int i = 0; i < records; i++) {
            long begin = System.nanoTime();
            producer.send(new ProducerRecord<>(topic, 0, null, value)).get();
            long acked = System.nanoTime();
            int received = 0;
            while (received == 0) {
                ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofSeconds(10));
                if (polled.isEmpty()) {
                    throw new IllegalStateException("poll() found nothing in 10 s for record " + i);
                }
                received = polled.count();
            }
            long consumed = System.nanoTime();
            if (received != 1) {
                throw new IllegalStateException(received + " records polled for one sent");
            }
            ack[i] = acked - begin;
            e2e[i] = consumed - begin;
        }
        Arrays.sort(ack);
        Arrays.sort(e2e);
        return new long[][] {ack, e2e};
    }

    /** Collections and milliseconds spent in them so far, all collectors: pauses land in the tail. */
    private static long[] gcCountAndMillis() {
        long count = 0;
        long millis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
            millis += Math.max(0, gc.getCollectionTime());
        }
        return new long[] {count, millis};
    }

    private static Map<String, Object> producerConfig(KafkaCluster cluster, String acks) {
        Map<String, Object> config = cluster.producerConfig();
        config.put("key.serializer", ByteArraySerializer.class.getName());
        config.put("value.serializer", ByteArraySerializer.class.getName());
        config.put("linger.ms", "0");
        config.put("acks", acks);
        return config;
    }

    private static Map<String, Object> consumerConfig(KafkaCluster cluster) {
        Map<String, Object> config = cluster.consumerConfig(null);
        config.put("key.deserializer", ByteArrayDeserializer.class.getName());
        config.put("value.deserializer", ByteArrayDeserializer.class.getName());
        config.put("enable.auto.commit", "false");
        config.put("fetch.max.wait.ms", "0");
        return config;
    }

    private static double percentile(long[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)] / 1e6;
    }

    private static String summary(long[] sorted) {
        return String.format(Locale.ROOT, "p50 %.2f, p99 %.2f, p99.9 %.2f, max %.2f ms", percentile(sorted, 0.5),
                percentile(sorted, 0.99), percentile(sorted, 0.999), sorted[sorted.length - 1] / 1e6);
    }

    private static String minMedianMax(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        return String.format(Locale.ROOT, "min %.2f, median %.2f, max %.2f ms", sorted[0], median, sorted[n - 1]);
    }

    private static int arg(String[] args, int index, int defaultValue) {
        return args.length > index ? Integer.parseInt(args[index]) : defaultValue;
    }
}
