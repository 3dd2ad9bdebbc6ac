package dev.samsa.bench;

import dev.samsa.KafkaCluster;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Cold start: how long a user waits for a first cluster. Not a test: surefire excludes {@code **}{@code /bench/**}.
 *
 * <pre>
 * mvn -B -q package -DskipTests &amp;&amp; bench/cold-start.sh [runs]      (default 20)
 * </pre>
 *
 * <p>Each run is a fresh JVM, so class loading and JIT warm-up are counted as a user meets them:
 * <ul>
 *   <li>{@code java -jar target/samsa-*-standalone.jar --brokers N}: from process start to the ready line on stdout,
 *       for 1 and 3 brokers (the process is then stopped with SIGTERM); then the same with the class-data sharing
 *       archive docs/standalone.md describes (written once by a run with {@code -XX:ArchiveClassesAtExit});</li>
 *   <li>inside a JVM that is already running (as a test JVM is): the first 3-broker {@code KafkaCluster} from
 *       {@code builder()} to {@code start()} returning, then the median of 20 later clusters in the same JVM.</li>
 * </ul>
 * Printed as min / median / max over the runs.
 */
public final class ColdStartBenchmark {

    private ColdStartBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--in-jvm")) {
            inJvm();
            return;
        }
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path jar = standaloneJar();
        System.out.printf(Locale.ROOT, "JVM %s, %d CPUs, %d runs each%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors(), runs);
        // The class-data sharing of docs/standalone.md: one run that writes the archive at exit, then runs that map it.
        Path archive = Path.of("target", "samsa-bench.jsa");
        Files.deleteIfExists(archive);
        untilReadyLine(List.of(java, "-XX:ArchiveClassesAtExit=" + archive, "-jar", jar.toString(), "--brokers", "3"));
        for (boolean cds : new boolean[] {false, true}) {
            for (int brokers : new int[] {1, 3}) {
                List<String> command = new ArrayList<>(List.of(java));
                if (cds) {
                    command.add("-XX:SharedArchiveFile=" + archive);
                }
                command.addAll(List.of("-jar", jar.toString(), "--brokers", Integer.toString(brokers)));
                double[] millis = new double[runs];
                for (int i = 0; i < runs; i++) {
                    millis[i] = untilReadyLine(command);
                }
                print("java " + (cds ? "-XX:SharedArchiveFile " : "") + "-jar to ready line, " + brokers + " broker(s)", millis);
            }
        }
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(Arrays.asList(System.getProperty("samsa.bench.jvm.flags", "").split(" ")));
        command.removeIf(String::isBlank);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ColdStartBenchmark.class.getName(), "--in-jvm"));
        double[] first = new double[runs];
        double[] later = new double[runs];
        for (int i = 0; i < runs; i++) {
            Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String line = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            p.waitFor();
            String[] parts = line.split(" ");
            first[i] = Double.parseDouble(parts[0]);
            later[i] = Double.parseDouble(parts[1]);
        }
        print("first 3-broker cluster in a running JVM", first);
        print("later 3-broker clusters in the same JVM (median of 20 each)", later);
    }

    /** Child JVM: prints "firstMillis laterMedianMillis". */
    private static void inJvm() {
        System.setProperty("org.slf4j.simpleLogger.log.dev.samsa", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.net.openhft", "warn");
        long t0 = System.nanoTime();
        KafkaCluster firstCluster = KafkaCluster.builder().brokers(3).start();
        double first = (System.nanoTime() - t0) / 1e6;
        firstCluster.close();
        double[] later = new double[20];
        for (int i = 0; i < later.length; i++) {
            long t = System.nanoTime();
            KafkaCluster cluster = KafkaCluster.builder().brokers(3).start();
            later[i] = (System.nanoTime() - t) / 1e6;
            cluster.close();
        }
        Arrays.sort(later);
        System.out.printf(Locale.ROOT, "%.2f %.2f%n", first, later[later.length / 2]);
    }

    private static double untilReadyLine(List<String> command) throws Exception {
        long start = System.nanoTime();
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line = out.readLine();
            double millis = (System.nanoTime() - start) / 1e6;
            if (line == null || !line.startsWith("bootstrap.servers=")) {
                throw new IllegalStateException("no ready line from " + command + ": " + line);
            }
            p.destroy();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            return millis;
        }
    }

    private static Path standaloneJar() throws Exception {
        try (var files = Files.list(Path.of("target"))) {
            return files.filter(f -> f.getFileName().toString().endsWith("-standalone.jar")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no target/*-standalone.jar: run mvn package first"));
        }
    }

    private static void print(String what, double[] millis) {
        double[] sorted = millis.clone();
        Arrays.sort(sorted);
        System.out.printf(Locale.ROOT, "%s: min %.1f ms, median %.1f ms, max %.1f ms%n", what, sorted[0],
                sorted[sorted.length / 2], sorted[sorted.length - 1]);
    }
}
