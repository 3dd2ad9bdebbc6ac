package org.apache.kafka.tools;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.utils.internals.Exit;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

/**
 * Kafka's own {@code kafka-transactions} tool (TransactionsCommand of kafka-tools 4.1) against Samsa: it lists,
 * describes and shows producers of an open transaction as it would against Kafka. In this package to hand the tool a
 * stream to print to instead of System.out.
 */
class KafkaTransactionsToolTest {

    @Test
    void listDescribeAndDescribeProducersShowTheOpenTransaction() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).topic("orders", 2, 3).start();
                KafkaProducer<String, String> producer = transactionalProducer(cluster, "billing-tx")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("orders", 1, "k", "v")).get();

            assertThat(run(cluster, "list"))
                    .contains("TransactionalId", "billing-tx", "Ongoing");
            assertThat(run(cluster, "describe", "--transactional-id", "billing-tx"))
                    .contains("billing-tx", "Ongoing", "orders-1");
            assertThat(run(cluster, "describe-producers", "--topic", "orders", "--partition", "1"))
                    .contains("ProducerId", "CurrentTransactionStartOffset")
                    // producer id, epoch, no marker yet (coordinator epoch -1), last sequence 0, timestamp, the transaction starts at 0
                    .containsPattern("\\n\\d+\\s+\\d+\\s+-1\\s+0\\s+\\d+\\s+0\\s");

            producer.commitTransaction();
            assertThat(run(cluster, "list")).contains("billing-tx").doesNotContain("Ongoing");
        }
    }

    private static String run(KafkaCluster cluster, String... command) throws Exception {
        String[] args = new String[command.length + 2];
        args[0] = "--bootstrap-server";
        args[1] = cluster.bootstrapServers();
        System.arraycopy(command, 0, args, 2, command.length);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<Admin> admins = new ArrayList<>();
        // The tool ends with Exit.exit(code) even on success; the exit procedure turns that into a return here.
        Exit.setExitProcedure((code, message) -> {
            throw new ToolExited(code, message);
        });
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            TransactionsCommand.execute(args, ns -> {
                Admin admin = Admin.create(cluster.adminConfig());
                admins.add(admin);
                return admin;
            }, out, Time.SYSTEM);
        } catch (ToolExited exited) {
            assertThat(exited.code).as("exit code of %s: %s", List.of(command), exited.getMessage()).isZero();
        } finally {
            Exit.resetExitProcedure();
            admins.forEach(Admin::close);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static final class ToolExited extends RuntimeException {
        final int code;

        ToolExited(int code, String message) {
            super(message);
            this.code = code;
        }
    }

    private static KafkaProducer<String, String> transactionalProducer(KafkaCluster cluster, String transactionalId) {
        Map<String, Object> config = cluster.producerConfig();
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        return new KafkaProducer<>(config);
    }
}
