package dev.samsa.group;

import static dev.samsa.group.GroupClients.closeQuietly;
import static dev.samsa.group.GroupClients.consumer;
import static dev.samsa.group.GroupClients.produce;
import static dev.samsa.group.GroupClients.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.GroupPartition;
import dev.samsa.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;

/**
 * The users' loss case: enable.auto.commit=true while the records are processed on another thread. Auto-commit
 * commits what poll() returned, not what was processed; when the process dies with records still waiting in the
 * hand-off queue, those records are committed but never processed, and the group never sees them again.
 */
class AutoCommitLossTest {

    private static final String TOPIC = "payments";
    private static final String GROUP = "ledger";

    @Test
    void recordsHandedToAnotherThreadAreLostWhenAutoCommitPassesThemAndTheConsumerDies() throws InterruptedException {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(22).topic(TOPIC, 1, 3).start()) {
            List<String> sent = produce(cluster, TOPIC, 0, 0, 30);

            // The worker processes ten records, then stalls on the eleventh (a slow downstream call).
            BlockingQueue<String> handedOff = new LinkedBlockingQueue<>();
            List<String> processed = Collections.synchronizedList(new ArrayList<>());
            CountDownLatch never = new CountDownLatch(1);
            Thread worker = new Thread(() -> {
                try {
                    while (true) {
                        String record = handedOff.take();
                        if (processed.size() == 10) {
                            never.await();
                        }
                        processed.add(record);
                    }
                } catch (InterruptedException e) {
                    // The process dies: whatever is still queued is gone with it.
                }
            }, "worker");
            worker.start();

            KafkaConsumer<String, String> app = consumer(cluster, GROUP, TOPIC, Map.of("client.id", "app",
                    "enable.auto.commit", "true", "auto.commit.interval.ms", "100", "max.poll.records", "10"));
            List<String> polled = new ArrayList<>();
            try {
                // The poll loop hands every record off and keeps polling; auto-commit runs inside poll().
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1))
                        .alias("auto-commit reaches the end of the partition").until(() -> {
                    List<String> batch = values(app.poll(Duration.ofMillis(50)));
                    polled.addAll(batch);
                    handedOff.addAll(batch);
                    Long committed = cluster.group(GROUP).committed().get(new GroupPartition(TOPIC, 0));
                    return committed != null && committed == sent.size();
                });
                await().atMost(Duration.ofSeconds(10)).until(() -> worker.getState() == Thread.State.WAITING && processed.size() == 10);
            } finally {
                // The crash: the consumer goes away and the worker dies with what it had not processed.
                closeQuietly(app);
                worker.interrupt();
                worker.join();
            }
            assertThat(polled).as("poll() returned every record").containsExactlyElementsOf(sent);
            assertThat(processed).as("processed before the crash").containsExactlyElementsOf(sent.subList(0, 10));

            // The restarted application resumes from the committed offset; new records prove it is reading.
            List<String> after = produce(cluster, TOPIC, 0, 30, 3);
            KafkaConsumer<String, String> restarted = consumer(cluster, GROUP, TOPIC, Map.of("client.id", "app-restarted"));
            List<String> redelivered = new ArrayList<>();
            try {
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1))
                        .alias("the restarted consumer reads the new records").until(() -> {
                    redelivered.addAll(values(restarted.poll(Duration.ofMillis(50))));
                    return redelivered.size() >= after.size();
                });
            } finally {
                closeQuietly(restarted);
            }
            assertThat(redelivered).as("after the restart only the new records arrive").containsExactlyElementsOf(after);

            List<String> lost = new ArrayList<>(sent);
            lost.removeAll(processed);
            lost.removeAll(redelivered);
            assertThat(lost).as("committed by auto-commit, never processed, never delivered again")
                    .containsExactlyElementsOf(sent.subList(10, 30));
        }
    }
}
