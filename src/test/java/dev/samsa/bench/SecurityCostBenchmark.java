package dev.samsa.bench;

import dev.samsa.KafkaCluster;
import dev.samsa.Security;
import dev.samsa.Security.Protocol;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What security costs: start-up time of a one-broker cluster with a SASL_SSL listener (CA and broker certificate
 * generated, SCRAM credentials computed) against a PLAINTEXT one, and one producer's throughput over SASL_SSL
 * (SCRAM-SHA-512) against PLAINTEXT on the same cluster in the same run. Not a test: surefire excludes bench/.
 *
 * <pre>
 * mvn -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java $(sed -n 's:.*&lt;chronicle.jvm.flags&gt;\(.*\)&lt;/chronicle.jvm.flags&gt;.*:\1:p' pom.xml) -Xmx2g \
 *     -cp target/classes:target/test-classes:$(cat target/cp.txt) dev.samsa.bench.SecurityCostBenchmark
 * </pre>
 *
 * <p>Arguments, all optional: {@code startupRuns records runs} (defaults 15 200000 3). Produce: 1 KiB values, one
 * partition, acks=1, linger.ms=5, batch.size=64 KiB, no compression, timed from the first send until flush() returns.
 */
public final class SecurityCostBenchmark {

    private static final int RECORD_BYTES = 1024;

    private SecurityCostBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.log.dev.samsa", "warn");
        int startupRuns = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        int records = args.length > 1 ? Integer.parseInt(args[1]) : 200_000;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        System.out.printf(Locale.ROOT, "JVM %s, %d CPUs%n", Runtime.version(), Runtime.getRuntime().availableProcessors());
        Security secured = Security.listeners(Protocol.SASL_SSL, Protocol.PLAINTEXT).user("bench", "bench-secret");
        startup("PLAINTEXT", () -> KafkaCluster.builder().seed(1).start(), startupRuns);
        startup("SASL_SSL + PLAINTEXT", () -> KafkaCluster.builder().seed(1).security(secured).start(), startupRuns);
        try (KafkaCluster cluster = KafkaCluster.builder().seed(1).security(secured).start()) {
            produce(cluster, cluster.producerConfig(), "warm-up PLAINTEXT", records / 10);
            produce(cluster, cluster.producerConfig("bench"), "warm-up SASL_SSL", records / 10);
            for (int run = 1; run <= runs; run++) {
                produce(cluster, cluster.producerConfig(), "PLAINTEXT run " + run, records);
                produce(cluster, cluster.producerConfig("bench"), "SASL_SSL (SCRAM-SHA-512) run " + run, records);
            }
        }
    }

    private static void startup(String what, Supplier<KafkaCluster> start, int runs) {
        for (int i = 0; i < 3; i++) {
            start.get().close();
        }
        double[] millis = new double[runs];
        for (int i = 0; i < runs; i++) {
            long begin = System.nanoTime();
            KafkaCluster cluster = start.get();
            millis[i] = (System.nanoTime() - begin) / 1e6;
            cluster.close();
        }
        Arrays.sort(millis);
        System.out.printf(Locale.ROOT, "start-up, %s: median %.1f ms, min %.1f ms, max %.1f ms (%d runs after 3 warm-ups)%n",
                what, millis[runs / 2], millis[0], millis[runs - 1], runs);
    }

    private static int topics;

    private static void produce(KafkaCluster cluster, Map<String, Object> config, String what, int records) throws Exception {
        String topic = "bench-" + ++topics;
        cluster.createTopic(topic, 1, 1);
        config.put("key.serializer", ByteArraySerializer.class.getName());
        config.put("value.serializer", ByteArraySerializer.class.getName());
        config.put("acks", "1");
        config.put("linger.ms", "5");
        config.put("batch.size", Integer.toString(64 * 1024));
        config.put("compression.type", "none");
        byte[] value = new byte[RECORD_BYTES];
        Arrays.fill(value, (byte) 'v');
        AtomicLong acknowledged = new AtomicLong();
        AtomicReference<Exception> failure = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            producer.partitionsFor(topic);
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
            double seconds = (System.nanoTime() - begin) / 1e9;
            if (failure.get() != null || acknowledged.get() != records) {
                throw new IllegalStateException(acknowledged.get() + " of " + records + " acknowledged", failure.get());
            }
            System.out.printf(Locale.ROOT, "produce, %s: %,d x 1 KiB in %.2f s: %,.0f records/s, %.1f MiB/s%n", what,
                    records, seconds, records / seconds, records * (double) RECORD_BYTES / (1 << 20) / seconds);
        }
    }
}
