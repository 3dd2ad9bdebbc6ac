package dev.samsa.boot.orders;

import static dev.samsa.junit.SamsaConditions.awaitCluster;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.boot.orders.OrdersApplication.OrderListener;
import dev.samsa.junit.EmbeddedKafkaCluster;
import dev.samsa.junit.Topic;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.kafka.core.KafkaTemplate;

/** No Kafka property anywhere: Boot's auto-configured template and listener find the context's cluster. */
@Order(1)
@SpringBootTest
@EmbeddedKafkaCluster(topics = @Topic(name = "orders", partitions = 3))
class FirstOrdersTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    KafkaTemplate<String, String> template;

    @Autowired
    OrderListener listener;

    @Test
    void sendsThroughTheAutoConfiguredTemplateAndReceivesInTheListener(KafkaCluster cluster) throws Exception {
        assertThat(context.getEnvironment().getProperty("spring.kafka.bootstrap-servers"))
                .isEqualTo(cluster.bootstrapServers());
        SeenClusters.record(getClass(), context, cluster);

        template.send("orders", "first-1", "created").get();
        awaitCluster().until(() -> listener.received().contains("first-1:created"));
    }
}
