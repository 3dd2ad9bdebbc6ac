package dev.samsa.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.Broker;
import dev.samsa.KafkaCluster;
import dev.samsa.RawConnection;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.junit.jupiter.api.Test;

/**
 * Connections are served on pooled threads: a closed connection, whichever side closed it, gives both its threads
 * back, and a stream of short connections reuses them instead of starting two threads each.
 */
class ConnectionThreadsTest {

    /** Far below the 400 threads that 200 connections would start without a pool. */
    private static final int SPARE_THREADS = 20;

    @Test
    void twoHundredShortConnectionsReuseAFewThreadsAndLeaveNoneBusy() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().start()) {
            Broker broker = cluster.brokers().get(0);
            apiVersionsOnANewConnection(broker);
            awaitNoBusyConnectionThread();
            long createdBefore = ConnectionThreads.created();
            int liveBefore = liveThreads();

            for (int i = 0; i < 200; i++) {
                apiVersionsOnANewConnection(broker);
            }

            awaitNoBusyConnectionThread();
            assertThat(ConnectionThreads.created() - createdBefore).as("connection threads created for 200 connections")
                    .isLessThanOrEqualTo(SPARE_THREADS);
            assertThat(liveThreads()).as("live threads after 200 connections (%d before)", liveBefore)
                    .isLessThanOrEqualTo(liveBefore + SPARE_THREADS);
        }
    }

    @Test
    void connectionsTheBrokerDropsGiveTheirThreadsBack() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().start()) {
            Broker broker = cluster.brokers().get(0);
            List<RawConnection> open = new ArrayList<>();
            try {
                for (int i = 0; i < 10; i++) {
                    RawConnection connection = RawConnection.connect(broker);
                    open.add(connection);
                    apiVersions(connection);
                }
                assertThat(busyConnectionThreads()).as("threads serving 10 open connections").hasSize(20);

                broker.dropConnections();

                // The clients still hold their sockets open: only the broker's close can end the blocked reads.
                awaitNoBusyConnectionThread();
            } finally {
                for (RawConnection connection : open) {
                    connection.close();
                }
            }
            apiVersionsOnANewConnection(broker);
        }
    }

    /**
     * A connection's threads see the class loader of whoever started the cluster, as threads of its own would; back in
     * the pool they hold on to no test's class loader.
     */
    @Test
    void aConnectionThreadSeesTheStartersClassLoaderAndAnIdleOneLetsItGo() throws Exception {
        ClassLoader testLoader = new URLClassLoader(new URL[0], getClass().getClassLoader());
        Thread self = Thread.currentThread();
        ClassLoader previous = self.getContextClassLoader();
        KafkaCluster started;
        self.setContextClassLoader(testLoader);
        try {
            started = KafkaCluster.builder().start();
        } finally {
            self.setContextClassLoader(previous);
        }
        try (KafkaCluster cluster = started; RawConnection connection = RawConnection.connect(cluster.brokers().get(0))) {
            apiVersions(connection);
            assertThat(threads(name -> name.contains("-conn-"))).as("threads serving the connection").hasSize(2)
                    .allSatisfy(thread -> assertThat(thread.getContextClassLoader()).isSameAs(testLoader));
        }
        awaitNoBusyConnectionThread();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(threads(name -> name.equals(ConnectionThreads.IDLE_NAME))).as("idle connection threads")
                        .isNotEmpty()
                        .allSatisfy(thread -> assertThat(thread.getContextClassLoader()).isNotSameAs(testLoader)));
    }

    private static void apiVersionsOnANewConnection(Broker broker) throws IOException {
        try (RawConnection connection = RawConnection.connect(broker)) {
            apiVersions(connection);
        }
    }

    private static void apiVersions(RawConnection connection) throws IOException {
        ApiVersionsResponse response = connection.send(new ApiVersionsRequest.Builder()
                .build(ApiKeys.API_VERSIONS.latestVersion()));
        assertThat(Errors.forCode(response.data().errorCode())).isEqualTo(Errors.NONE);
    }

    private static void awaitNoBusyConnectionThread() {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(busyConnectionThreads()).as("threads still serving a closed connection").isEmpty());
    }

    /** Connection threads are named after the connection they serve ({@code <listener>-conn-<n>-reader}). */
    private static List<String> busyConnectionThreads() {
        return threads(name -> name.contains("-conn-")).stream().map(Thread::getName).sorted().toList();
    }

    private static List<Thread> threads(Predicate<String> name) {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .filter(thread -> name.test(thread.getName())).toList();
    }

    private static int liveThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).count();
    }
}
