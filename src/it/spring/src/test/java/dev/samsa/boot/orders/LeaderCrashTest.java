package dev.samsa.boot.orders;

import static dev.samsa.junit.SamsaConditions.awaitCluster;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.KafkaCluster;
import dev.samsa.boot.orders.OrdersApplication.OrderListener;
import dev.samsa.junit.EmbeddedKafkaCluster;
import dev.samsa.junit.EmbeddedKafkaCluster.ClockType;
import dev.samsa.junit.Topic;
import dev.samsa.time.ClusterClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * Another cluster configuration, so another context and cluster. Through the injected beans the test crashes the
 * partition leader and moves the manual clock past the consumer's session timeout; the listener gets every record.
 */
@Order(3)
@SpringBootTest
@EmbeddedKafkaCluster(brokers = 3, clock = ClockType.MANUAL, brokerConfig = "min.insync.replicas=2",
        topics = @Topic(name = "orders", partitions = 3, replicationFactor = 3))
class LeaderCrashTest {

    @Autowired
    ApplicationContext context;

    @Autowired
    KafkaCluster cluster;

    @Autowired
    ClusterClock clock;

    @Autowired
    KafkaTemplate<String, String> template;

    @Autowired
    OrderListener listener;

    @Test
    void theListenerReceivesEveryRecordThroughALeaderCrash(KafkaCluster injected, ClusterClock injectedClock)
            throws Exception {
        assertThat(injected).isSameAs(cluster);
        assertThat(injectedClock).isSameAs(clock).isSameAs(cluster.clock());
        SeenClusters.record(getClass(), context, cluster);
        SeenClusters.Seen first = SeenClusters.by(FirstOrdersTest.class);
        assertThat(context).isNotSameAs(first.context());
        assertThat(cluster).isNotSameAs(first.cluster());

        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            template.send("orders", 0, "before-" + i, "created").get();
            sent.add("before-" + i + ":created");
        }
        int leader = cluster.partition("orders", 0).leader();
        cluster.broker(leader).crash();
        assertThat(cluster.partition("orders", 0).leader()).isNotEqualTo(leader);
        clock.advance(Duration.ofSeconds(46)); // past session.timeout.ms: the listener, still polling, keeps its place
        for (int i = 0; i < 10; i++) {
            template.send("orders", 0, "after-" + i, "created").get();
            sent.add("after-" + i + ":created");
        }

        awaitCluster().untilAsserted(() -> assertThat(listener.received()).containsAll(sent));
        cluster.broker(leader).restart();
    }
}
