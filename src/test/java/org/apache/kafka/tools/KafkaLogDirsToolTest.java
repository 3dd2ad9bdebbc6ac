package org.apache.kafka.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * DescribeLogDirs through a real admin client and Kafka's own {@code kafka-log-dirs} tool (LogDirsCommand of
 * kafka-tools): one directory per broker, each replica with the bytes of its log, equal on every replica once
 * replicated, growing as records are appended.
 */
class KafkaLogDirsToolTest {

    @Test
    void everyBrokerDescribesItsReplicasWithTheSizeOfTheirLogs() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).topic("orders", 2, 3).start();
             Admin admin = Admin.create(cluster.adminConfig());
             KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("orders", 0, "k" + i, "v" + i)).get();
            }
            TopicPartition written = new TopicPartition("orders", 0);
            TopicPartition empty = new TopicPartition("orders", 1);

            Map<Integer, Map<String, LogDirDescription>> dirs = admin.describeLogDirs(List.of(1, 2, 3)).allDescriptions().get();
            assertThat(dirs).containsOnlyKeys(1, 2, 3);
            long size = -1;
            for (int broker = 1; broker <= 3; broker++) {
                assertThat(dirs.get(broker)).hasSize(1);
                LogDirDescription dir = dirs.get(broker).values().iterator().next();
                assertThat(dir.error()).isNull();
                assertThat(dir.totalBytes()).isPresent();
                Map<TopicPartition, ReplicaInfo> replicas = dir.replicaInfos();
                assertThat(replicas).containsOnlyKeys(written, empty);
                assertThat(replicas.get(empty).size()).isZero();
                assertThat(replicas.get(written).size()).isPositive();
                assertThat(replicas.get(written).offsetLag()).isZero();
                if (size >= 0) {
                    assertThat(replicas.get(written).size()).as("broker %d", broker).isEqualTo(size);
                }
                size = replicas.get(written).size();
            }

            producer.send(new ProducerRecord<>("orders", 0, "k", "v")).get();
            long grown = admin.describeLogDirs(List.of(1)).allDescriptions().get().get(1).values().iterator().next()
                    .replicaInfos().get(written).size();
            assertThat(grown).isGreaterThan(size);

            assertThat(run(cluster, "--describe", "--broker-list", "1,2,3", "--topic-list", "orders"))
                    .contains("Received log directory information from brokers 1,2,3")
                    .contains("\"partition\":\"orders-0\",\"size\":" + grown)
                    .contains("\"partition\":\"orders-1\",\"size\":0");
        }
    }

    private static String run(KafkaCluster cluster, String... command) {
        String[] args = new String[command.length + 2];
        args[0] = "--bootstrap-server";
        args[1] = cluster.bootstrapServers();
        System.arraycopy(command, 0, args, 2, command.length);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            System.setOut(out);
            assertThat(LogDirsCommand.mainNoExit(args)).as("kafka-log-dirs exit code").isZero();
        } finally {
            System.setOut(stdout);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
