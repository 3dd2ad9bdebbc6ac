package dev.samsa.bench;

import dev.samsa.KafkaCluster;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Consume throughput: one partition holding {@code records} records of 1 KiB, read from the beginning by a plain
 * KafkaConsumer (assign, seekToBeginning, poll until all are in; fetch sizes at the client's defaults), a fresh
 * consumer per run. Samsa with 1 broker and with 3 (the topic at replication factor 3), or, with
 * {@code --bootstrap host:port}, whatever cluster listens there (bench/kafka41.sh starts Kafka 4.1 for that). Not a
 * test: surefire excludes {@code **}{@code /bench/**}.
 *
 * <pre>
 * BENCH=ConsumeBenchmark bench/run.sh [runs [records]] [--bootstrap host:port]     (defaults 5 300000)
 * </pre>
 *
 * <p>Prints records per second as min / median / max over the runs, after one warm-up run that is not counted, and,
 * being less at the mercy of a busy machine, the CPU time the whole process spent per run and the bytes allocated per
 * run by the consumer's thread and by the brokers' threads (medians).
 */
public final class ConsumeBenchmark {

    private static final int RECORD_BYTES = 1024;
    private static final String TOPIC = "consume-bench";
    private static final double MIB = 1024.0 * 1024;

    private ConsumeBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        NanoSamples.Args parsed = NanoSamples.Args.parse(args);
        String bootstrap = parsed.bootstrap();
        int runs = parsed.integer(0, 5);
        int records = parsed.integer(1, 300_000);
        System.out.printf(Locale.ROOT, "JVM %s, %d CPUs, %d x %d B records, %d runs + 1 warm-up%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), records, RECORD_BYTES, runs);
        if (bootstrap != null) {
            createTopic(bootstrap, 1);
            System.out.printf(Locale.ROOT, "%-22s %s%n", bootstrap, measure(bootstrap, records, runs));
            return;
        }
        for (int brokers : new int[] {1, 3}) {
            try (KafkaCluster cluster = KafkaCluster.builder().brokers(brokers).topic(TOPIC, 1, brokers).start()) {
                System.out.printf(Locale.ROOT, "samsa %d broker(s)       %s%n", brokers,
                        measure(cluster.bootstrapServers(), records, runs));
            }
        }
    }

    private static String measure(String bootstrap, int records, int runs) throws Exception {
        produce(bootstrap, records);
        consume(bootstrap, records);
        double[] perSecond = new double[runs];
        double[] cpuMillis = new double[runs];
        double[] clientMiB = new double[runs];
        double[] brokerMiB = new double[runs];
        for (int i = 0; i < runs; i++) {
            Run run = consume(bootstrap, records);
            perSecond[i] = run.recordsPerSecond;
            cpuMillis[i] = run.cpuMillis;
            clientMiB[i] = run.clientMiB;
            brokerMiB[i] = run.brokerMiB;
        }
        return String.format(Locale.ROOT, "%s rec/s   cpu %,.0f ms/run   allocated: client %,.0f MiB/run, brokers %,.0f MiB/run",
                stats(perSecond), median(cpuMillis), median(clientMiB), median(brokerMiB));
    }

    /** One consume, with what the process spent on it. */
    private record Run(double recordsPerSecond, double cpuMillis, double clientMiB, double brokerMiB) {
    }

    private static final com.sun.management.OperatingSystemMXBean PROCESS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /**
     * Bytes allocated so far by each live thread, by id. The consumer polls on this (main) thread; every other thread
     * of the process is a broker's (cluster loop, connection readers and writers), or, against {@code --bootstrap},
     * idle.
     */
    private static Map<Long, Long> allocatedByThread() {
        long[] ids = THREADS.getAllThreadIds();
        long[] bytes = THREADS.getThreadAllocatedBytes(ids);
        Map<Long, Long> out = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            out.put(ids[i], Math.max(0, bytes[i]));
        }
        return out;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static void createTopic(String bootstrap, int replicationFactor) throws InterruptedException, ExecutionException {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            if (!admin.listTopics().names().get().contains(TOPIC)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) replicationFactor))).all().get();
            }
        }
    }

    private static void produce(String bootstrap, int records) {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", bootstrap);
        config.put("linger.ms", "5");
        config.put("acks", "1");
        byte[] value = new byte[RECORD_BYTES];
        Arrays.fill(value, (byte) 'x');
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(TOPIC, 0, null, value));
            }
            producer.flush();
        }
    }

    /**
     * Records per second from the first poll to the last record, and the CPU time and allocation of the process
     * meanwhile, taken before the consumer closes (a broker's connection threads end with it, and their counts too).
     */
    private static Run consume(String bootstrap, int records) {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", bootstrap);
        config.put("enable.auto.commit", "false");
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.assign(Set.of(tp));
            consumer.seekToBeginning(Set.of(tp));
            long cpu = PROCESS.getProcessCpuTime();
            Map<Long, Long> allocated = allocatedByThread();
            long start = System.nanoTime();
            long read = 0;
            while (read < records) {
                ConsumerRecords<byte[], byte[]> polled = consumer.poll(Duration.ofSeconds(1));
                read += polled.count();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            double cpuMillis = (PROCESS.getProcessCpuTime() - cpu) / 1e6;
            long client = 0;
            long brokers = 0;
            long self = Thread.currentThread().getId();
            for (Map.Entry<Long, Long> e : allocatedByThread().entrySet()) {
                long bytes = e.getValue() - allocated.getOrDefault(e.getKey(), 0L);
                if (e.getKey() == self) {
                    client += bytes;
                } else {
                    brokers += bytes;
                }
            }
            return new Run(read / seconds, cpuMillis, client / MIB, brokers / MIB);
        }
    }

    private static String stats(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return String.format(Locale.ROOT, "%,.0f / %,.0f / %,.0f", sorted[0], sorted[sorted.length / 2],
                sorted[sorted.length - 1]);
    }
}
