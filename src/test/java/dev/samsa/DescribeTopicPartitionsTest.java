package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeTopicPartitionsRequest;
import org.apache.kafka.common.requests.DescribeTopicPartitionsResponse;
import org.junit.jupiter.api.Test;

/**
 * DescribeTopicPartitions (KIP-966), which {@code Admin.describeTopics} sends from kafka-clients 3.8 on: a real admin
 * client's answer agrees with the cluster's own view, across pages, and the raw answer pages by cursor as Kafka's.
 */
class DescribeTopicPartitionsTest {

    @Test
    void theAdminClientDescribesTopicsAcrossPagesAsTheClusterSeesThem() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).topic("orders", 5, 3).topic("audit", 2, 2).start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            cluster.broker(2).crash();
            // Two partitions per answer: the client follows the cursors to the end.
            Map<String, TopicDescription> described = admin.describeTopics(List.of("orders", "audit"),
                    new DescribeTopicsOptions().partitionSizeLimitPerResponse(2)).allTopicNames().get();

            assertThat(described).containsOnlyKeys("orders", "audit");
            for (TopicDescription d : described.values()) {
                assertThat(d.topicId()).isNotNull();
                assertThat(d.isInternal()).isFalse();
                for (TopicPartitionInfo p : d.partitions()) {
                    PartitionView view = cluster.partition(d.name(), p.partition());
                    assertThat(p.leader() == null ? -1 : p.leader().id()).as("%s-%d", d.name(), p.partition())
                            .isEqualTo(view.leader());
                    assertThat(p.isr()).extracting(Node::id).containsExactlyInAnyOrderElementsOf(view.isr());
                    assertThat(p.replicas()).hasSize(view.replicas().size());
                }
            }
            assertThat(described.get("orders").partitions()).extracting(TopicPartitionInfo::partition).containsExactly(0, 1, 2, 3, 4);

            assertThatThrownBy(() -> admin.describeTopics(List.of("missing")).allTopicNames().get())
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
        }
    }

    @Test
    void theRawAnswerStopsAtTheLimitWithACursorAndGoesOnFromIt() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder().topic("a", 3, 1).topic("b", 2, 1).start();
             RawConnection connection = RawConnection.connect(cluster.broker(1))) {
            DescribeTopicPartitionsRequestData first = new DescribeTopicPartitionsRequestData().setResponsePartitionLimit(4);
            first.topics().add(new DescribeTopicPartitionsRequestData.TopicRequest().setName("b"));
            first.topics().add(new DescribeTopicPartitionsRequestData.TopicRequest().setName("a"));
            DescribeTopicPartitionsResponse page1 = connection.send(new DescribeTopicPartitionsRequest.Builder(first).build((short) 0));

            assertThat(page1.data().topics()).extracting(t -> t.name() + ":" + t.partitions().size()).containsExactly("a:3", "b:1");
            assertThat(page1.data().nextCursor().topicName()).isEqualTo("b");
            assertThat(page1.data().nextCursor().partitionIndex()).isEqualTo(1);

            DescribeTopicPartitionsRequestData second = first.duplicate().setCursor(new DescribeTopicPartitionsRequestData.Cursor()
                    .setTopicName("b").setPartitionIndex(1));
            DescribeTopicPartitionsResponse page2 = connection.send(new DescribeTopicPartitionsRequest.Builder(second).build((short) 0));
            assertThat(page2.data().topics()).singleElement().satisfies(t -> {
                assertThat(t.name()).isEqualTo("b");
                assertThat(t.partitions()).extracting(p -> p.partitionIndex()).containsExactly(1);
            });
            assertThat(page2.data().nextCursor()).isNull();

            DescribeTopicPartitionsRequestData stray = new DescribeTopicPartitionsRequestData()
                    .setCursor(new DescribeTopicPartitionsRequestData.Cursor().setTopicName("z").setPartitionIndex(0));
            stray.topics().add(new DescribeTopicPartitionsRequestData.TopicRequest().setName("a"));
            DescribeTopicPartitionsResponse invalid = connection.send(new DescribeTopicPartitionsRequest.Builder(stray).build((short) 0));
            assertThat(invalid.data().topics()).allSatisfy(t -> assertThat(t.errorCode()).isEqualTo(Errors.INVALID_REQUEST.code()));
        }
    }
}
