package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Start and close leave nothing behind in the JVM: no Samsa thread (but the idle loop, acceptor, connection and
 * store-preparer threads kept for the next cluster; network/ConnectionThreadsTest shows that closed connections give
 * theirs back), no open file or mapping of a data directory, no temporary directory; a start that fails half-way
 * neither. Read from /proc, so Linux only.
 */
class ResourceLeakTest {

    private static final Path TMP = Path.of(System.getProperty("java.io.tmpdir"));

    @Test
    void aHundredStartAndCloseCyclesLeaveNothingBehind() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "needs /proc");
        cycle(true); // the first cluster of a JVM also loads classes and probes the store once
        Set<String> dirsBefore = samsaTempDirs();
        int descriptorsBefore = openDescriptors().size();

        for (int i = 0; i < 100; i++) {
            cycle(i % 10 == 0);
        }

        assertThat(samsaThreads()).as("Samsa threads still alive").isEmpty();
        assertThat(openDescriptors()).as("descriptors open on data directories")
                .filteredOn(target -> target.contains("/samsa-")).isEmpty();
        assertThat(openDescriptors().size()).as("open descriptors after 100 clusters (%d before)", descriptorsBefore)
                .isLessThanOrEqualTo(descriptorsBefore + 5);
        assertThat(mappedDataFiles()).as("mapped regions of data directories").isEmpty();
        assertThat(samsaTempDirs()).as("temporary directories").isEqualTo(dirsBefore);
    }

    /**
     * The cheap path of a cluster per test (no topic, so no file is written): 200 of them give back every thread,
     * descriptor and port. The ports of the last cluster bind again at once.
     */
    @Test
    void twoHundredBareClustersGiveBackThreadsDescriptorsAndPorts() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "needs /proc");
        KafkaCluster.builder().brokers(3).start().close();
        Set<String> dirsBefore = samsaTempDirs();
        int threadsBefore = liveThreads();
        int descriptorsBefore = openDescriptors().size();

        List<Integer> lastPorts = List.of();
        for (int i = 0; i < 200; i++) {
            try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).start()) {
                lastPorts = cluster.brokers().stream().map(Broker::port).toList();
            }
        }

        assertThat(samsaThreads()).as("Samsa threads still alive").isEmpty();
        // The pools keep at most one spare per thread a cluster needs (the loop, three acceptors): a thread that has
        // just let a closing cluster go may not be back in its pool when the next cluster asks for one.
        assertThat(liveThreads()).as("live threads after 200 clusters (%d before)", threadsBefore)
                .isLessThanOrEqualTo(threadsBefore + 4);
        assertThat(openDescriptors().size()).as("open descriptors after 200 clusters (%d before)", descriptorsBefore)
                .isLessThanOrEqualTo(descriptorsBefore + 5);
        assertThat(samsaTempDirs()).as("temporary directories").isEqualTo(dirsBefore);
        for (int port : lastPorts) {
            try (ServerSocket again = new ServerSocket()) {
                again.setReuseAddress(true);
                again.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            }
        }
    }

    @Test
    void aStartThatFailsRemovesItsTemporaryDirectory() throws Exception {
        Set<String> before = samsaTempDirs();
        assertThatThrownBy(() -> KafkaCluster.builder().topic("payments", 1, 3).start())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Cannot create topic 'payments'");
        // Broker 1 starts on a free port, broker 2 finds its port taken.
        try (ServerSocket taken = takenPortAfterAFreeOne()) {
            assertThatThrownBy(() -> KafkaCluster.builder().brokers(2).port(taken.getLocalPort() - 1)
                    .topic("orders", 3, 1).start()).hasMessageContaining("Cannot listen on 127.0.0.1:" + taken.getLocalPort());
        }
        assertThat(samsaTempDirs()).isEqualTo(before);
        assertThat(samsaThreads()).isEmpty();
        if (Files.exists(Path.of("/proc/self/maps"))) {
            assertThat(mappedDataFiles()).isEmpty();
        }
    }

    private static ServerSocket takenPortAfterAFreeOne() throws IOException {
        for (int attempt = 0; ; attempt++) {
            int free;
            try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
                free = probe.getLocalPort();
            }
            try {
                return new ServerSocket(free + 1, 50, InetAddress.getLoopbackAddress());
            } catch (IOException e) {
                if (attempt == 20) {
                    throw e;
                }
            }
        }
    }

    /** A 3-broker cluster with a replicated topic; some cycles also talk to it, so connections open and close. */
    private static void cycle(boolean withClient) throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).topic("orders", 3, 3).start()) {
            if (withClient) {
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
                    producer.send(new ProducerRecord<>("orders", "k", "v")).get();
                }
            }
        }
    }

    private static List<String> samsaThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith("samsa-") && !name.equals("samsa-store-probe")
                        && !name.equals("samsa-idle-acceptor") && !name.equals("samsa-idle-loop")
                        && !name.equals("samsa-idle-connection") && !name.equals("samsa-idle-store-preparer"))
                .sorted().toList();
    }

    private static int liveThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).count();
    }

    private static List<String> openDescriptors() throws IOException {
        List<String> targets = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    targets.add(Files.readSymbolicLink(fd).toString());
                } catch (IOException e) {
                    // closed between listing and reading
                }
            }
        }
        return targets;
    }

    private static List<String> mappedDataFiles() throws IOException {
        try (Stream<String> maps = Files.lines(Path.of("/proc/self/maps"))) {
            return maps.filter(line -> line.contains(TMP + "/samsa-")).collect(Collectors.toList());
        }
    }

    private static Set<String> samsaTempDirs() throws IOException {
        try (Stream<Path> entries = Files.list(TMP)) {
            return entries.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("samsa-"))
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }
}
