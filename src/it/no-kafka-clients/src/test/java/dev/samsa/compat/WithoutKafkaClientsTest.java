package dev.samsa.compat;

import static dev.samsa.junit.SamsaAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster;
import dev.samsa.junit.Topic;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.Socket;
import org.junit.jupiter.api.Test;

@EmbeddedKafkaCluster(brokers = 3, topics = @Topic(name = "orders", replicationFactor = 3))
class WithoutKafkaClientsTest {

    @Test
    void theClusterServesTheWireProtocolOnItsOwnCopy(KafkaCluster cluster) throws Exception {
        assertThatThrownBy(() -> Class.forName("org.apache.kafka.clients.consumer.KafkaConsumer"))
                .isInstanceOf(ClassNotFoundException.class);
        String first = cluster.bootstrapServers().split(",")[0];
        int port = Integer.parseInt(first.substring(first.indexOf(':') + 1));
        try (Socket socket = new Socket("127.0.0.1", port)) {
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            // ApiVersions v0: api key 18, version 0, correlation id 7, client id "it".
            out.writeInt(2 + 2 + 4 + 2 + 2);
            out.writeShort(18);
            out.writeShort(0);
            out.writeInt(7);
            out.writeShort(2);
            out.writeBytes("it");
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int size = in.readInt();
            assertThat(size).isGreaterThan(10);
            assertThat(in.readInt()).as("correlation id").isEqualTo(7);
            assertThat(in.readShort()).as("error code").isZero();
        }
        // Every assertion but topic(...), which reads with the test's own KafkaConsumer, works without kafka-clients.
        assertThat(cluster).partition("orders", 0).hasIsrSize(3);
        assertThat(cluster).timeline().hasEvent("TopicCreated", "orders");
    }
}
