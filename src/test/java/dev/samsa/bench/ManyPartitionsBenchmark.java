package dev.samsa.bench;

import dev.samsa.KafkaCluster;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A wide topic in one JVM: a 3-broker cluster started with a topic of {@code partitions} partitions at replication
 * factor 3 (10,000 by default: Kafka's per-request limit, 30,000 replicas), then one record produced to every
 * partition with acks=all. Not a test: surefire excludes {@code **}{@code /bench/**}.
 *
 * <pre>
 * BENCH=ManyPartitionsBenchmark BENCH_HEAP=2g bench/run.sh [partitions runs]
 * </pre>
 *
 * <p>Per run, printed as min / median / max: the start with the topic, the produce, and what the idle cluster then
 * holds: open file descriptors and memory mappings (against {@code ulimit -n} and {@code vm.max_map_count}, the limits
 * a wide topic meets first), heap after a GC and resident memory, per partition replica.
 */
public final class ManyPartitionsBenchmark {

    private ManyPartitionsBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int partitions = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int replicas = partitions * 3;
        System.out.printf(Locale.ROOT, "JVM %s, %d CPUs, %d partitions x RF 3, %d runs; ulimit -n %d, vm.max_map_count %s%n",
                Runtime.version(), Runtime.getRuntime().availableProcessors(), partitions, runs, maxDescriptors(),
                firstLine(Path.of("/proc/sys/vm/max_map_count")));
        long baseDescriptors = openDescriptors();
        long baseMaps = mappings();
        long baseHeap = heapAfterGc();
        long baseRss = rssKiB();
        double[] start = new double[runs];
        double[] produce = new double[runs];
        double[] descriptors = new double[runs];
        double[] maps = new double[runs];
        double[] heap = new double[runs];
        double[] rss = new double[runs];
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(i).topic("wide", partitions, 3).start()) {
                start[i] = (System.nanoTime() - t0) / 1e6;
                t0 = System.nanoTime();
                produceOneRecordPerPartition(cluster, partitions);
                produce[i] = (System.nanoTime() - t0) / 1e6;
                descriptors[i] = (double) (openDescriptors() - baseDescriptors) / replicas;
                maps[i] = (double) (mappings() - baseMaps) / replicas;
                heap[i] = (double) (heapAfterGc() - baseHeap) / replicas;
                rss[i] = (rssKiB() - baseRss) * 1024.0 / replicas;
            }
            System.out.printf(Locale.ROOT, "run %d: start %.0f ms, produce %.0f ms, per replica: %.3f descriptors, %.3f mappings,"
                    + " %.0f B heap, %.0f B resident%n", i + 1, start[i], produce[i], descriptors[i], maps[i], heap[i], rss[i]);
        }
        System.out.printf(Locale.ROOT, "start with the topic (ms)               %s%n", stats(start, "%.0f"));
        System.out.printf(Locale.ROOT, "produce 1 record per partition (ms)     %s%n", stats(produce, "%.0f"));
        System.out.printf(Locale.ROOT, "open descriptors per replica            %s%n", stats(descriptors, "%.3f"));
        System.out.printf(Locale.ROOT, "memory mappings per replica             %s%n", stats(maps, "%.3f"));
        System.out.printf(Locale.ROOT, "heap after GC per replica (bytes)       %s%n", stats(heap, "%.0f"));
        System.out.printf(Locale.ROOT, "resident memory per replica (bytes)     %s%n", stats(rss, "%.0f"));
    }

    private static void produceOneRecordPerPartition(KafkaCluster cluster, int partitions) throws Exception {
        Map<String, Object> config = cluster.producerConfig();
        config.put("linger.ms", 5);
        // Thousands of partitions' first records each create a directory and a file: on a slow disk that can outlast
        // the default 30 s request timeout, and a retried produce only adds to the work.
        config.put("request.timeout.ms", 600_000);
        config.put("delivery.timeout.ms", 900_000);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
            List<Future<?>> sent = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                sent.add(producer.send(new ProducerRecord<>("wide", p, null, "record-" + p)));
            }
            for (Future<?> send : sent) {
                send.get();
            }
        }
    }

    private static long openDescriptors() {
        return ((com.sun.management.UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getOpenFileDescriptorCount();
    }

    private static long maxDescriptors() {
        return ((com.sun.management.UnixOperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getMaxFileDescriptorCount();
    }

    private static long mappings() throws Exception {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.count();
        }
    }

    private static long rssKiB() throws Exception {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/status"))) {
            return lines.filter(l -> l.startsWith("VmRSS:")).mapToLong(l -> Long.parseLong(l.replaceAll("\\D", "")))
                    .findFirst().orElse(0);
        }
    }

    private static long heapAfterGc() {
        System.gc();
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    private static String firstLine(Path file) throws Exception {
        try (var reader = Files.newBufferedReader(file)) {
            return reader.readLine();
        }
    }

    private static String stats(double[] values, String format) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        String f = format + " / " + format + " / " + format;
        return String.format(Locale.ROOT, f, sorted[0], sorted[sorted.length / 2], sorted[sorted.length - 1]);
    }
}
