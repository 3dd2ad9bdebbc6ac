package dev.samsa.bench;

import dev.samsa.KafkaCluster;
import dev.samsa.Security;
import dev.samsa.Security.Mechanism;
import dev.samsa.Security.Protocol;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What an OAUTHBEARER login costs against SCRAM-SHA-512, over SASL_PLAINTEXT so that TLS does not blur it: a
 * one-broker cluster's start plus a new producer's first acknowledged record, and on a running cluster the new
 * producer's first record alone (its logins included). Medians of {@code runs} (default 15) after 3 warm-ups.
 * Not a test: surefire excludes bench/. {@code BENCH=OAuthBearerLoginBenchmark bench/run.sh [runs]}
 */
public final class OAuthBearerLoginBenchmark {

    private OAuthBearerLoginBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.log.dev.samsa", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "warn");
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        System.out.printf(Locale.ROOT, "JVM %s, %d CPUs%n", Runtime.version(), Runtime.getRuntime().availableProcessors());
        Mechanism[] mechanisms = {Mechanism.SCRAM_SHA_512, Mechanism.OAUTHBEARER};
        double[][] startAndProduce = new double[mechanisms.length][runs];
        // Interleaved, so that JIT warm-up and other load fall on both alike.
        for (int i = -3; i < runs; i++) {
            for (int m = 0; m < mechanisms.length; m++) {
                long begin = System.nanoTime();
                try (KafkaCluster cluster = KafkaCluster.builder().seed(1).security(security(mechanisms[m])).topic("t", 1, 1).start()) {
                    firstRecord(cluster.producerConfig("bench"));
                }
                if (i >= 0) {
                    startAndProduce[m][i] = (System.nanoTime() - begin) / 1e6;
                }
            }
        }
        double[][] produceOnly = new double[mechanisms.length][runs];
        try (KafkaCluster scram = KafkaCluster.builder().seed(1).security(security(mechanisms[0])).topic("t", 1, 1).start();
             KafkaCluster oauth = KafkaCluster.builder().seed(1).security(security(mechanisms[1])).topic("t", 1, 1).start()) {
            KafkaCluster[] clusters = {scram, oauth};
            for (int i = -3; i < runs; i++) {
                for (int m = 0; m < mechanisms.length; m++) {
                    long begin = System.nanoTime();
                    firstRecord(clusters[m].producerConfig("bench"));
                    if (i >= 0) {
                        produceOnly[m][i] = (System.nanoTime() - begin) / 1e6;
                    }
                }
            }
        }
        for (int m = 0; m < mechanisms.length; m++) {
            System.out.printf(Locale.ROOT, "%s: start + first produce median %.1f ms (min %.1f); new producer's first "
                            + "record median %.1f ms (min %.1f); %d runs%n", mechanisms[m].mechanismName(),
                    median(startAndProduce[m]), min(startAndProduce[m]), median(produceOnly[m]), min(produceOnly[m]), runs);
        }
    }

    private static Security security(Mechanism mechanism) {
        return Security.listeners(Protocol.SASL_PLAINTEXT).mechanisms(mechanism).user("bench", "bench-secret");
    }

    private static void firstRecord(Map<String, Object> config) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>("t", "k", "v")).get();
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static double min(double[] values) {
        return Arrays.stream(values).min().orElse(0);
    }
}
