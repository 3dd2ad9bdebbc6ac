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

/**
 * The configuration of {@link FirstOrdersTest}, so Spring hands this class the same context, whose template and
 * listener still talk to the same, running, cluster.
 */
@Order(2)
@SpringBootTest
@EmbeddedKafkaCluster(topics = @Topic(name = "orders", partitions = 3))
class SecondOrdersTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    KafkaTemplate<String, String> template;

    @Autowired
    OrderListener listener;

    @Test
    void sharesTheFirstClassesContextAndCluster(KafkaCluster cluster) throws Exception {
        SeenClusters.record(getClass(), context, cluster);
        SeenClusters.Seen first = SeenClusters.by(FirstOrdersTest.class);
        assertThat(context).isSameAs(first.context());
        assertThat(cluster).isSameAs(first.cluster());

        template.send("orders", "second-1", "created").get();
        awaitCluster().until(() -> listener.received().contains("second-1:created"));
        assertThat(listener.received()).contains("first-1:created");
    }
}
