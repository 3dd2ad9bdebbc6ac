package dev.samsa.group.modern;

import static dev.samsa.group.modern.ModernConsumers.partitions;
import static dev.samsa.group.modern.ModernConsumers.pollAll;
import static dev.samsa.group.modern.ModernConsumers.union;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.junit.jupiter.api.Test;

/**
 * The admin client sees a consumer-protocol group as against Kafka: ConsumerGroupDescribe (type, state, epochs,
 * assignor, member epochs and assignments), ListGroups with the type filter, DeleteGroups once its members left.
 */
class ConsumerProtocolAdminTest {

    @Test
    void adminDescribesListsAndDeletesAConsumerGroup() throws Exception {
        try (KafkaCluster cluster = ModernConsumers.fastHeartbeats(KafkaCluster.builder().brokers(3).seed(7)
                .topic("orders", 6, 3)).start();
             Admin admin = Admin.create(cluster.adminConfig())) {
            List<KafkaConsumer<String, String>> members = new ArrayList<>();
            try {
                for (int n = 1; n <= 2; n++) {
                    KafkaConsumer<String, String> c = ModernConsumers.consumer(cluster, "billing",
                            Map.of("client.id", "m" + n, "group.remote.assignor", "range"));
                    c.subscribe(List.of("orders"));
                    members.add(c);
                }
                await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1)).untilAsserted(() -> {
                    pollAll(members);
                    assertThat(union(members)).containsExactlyInAnyOrderElementsOf(partitions("orders", 6));
                    assertThat(members).allSatisfy(c -> assertThat(c.assignment()).hasSize(3));
                    assertThat(cluster.group("billing").state()).isEqualTo(dev.samsa.GroupState.STABLE);
                });

                ConsumerGroupDescription d = admin.describeConsumerGroups(List.of("billing")).describedGroups().get("billing").get();
                assertThat(d.type()).isEqualTo(GroupType.CONSUMER);
                assertThat(d.groupState()).isEqualTo(GroupState.STABLE);
                assertThat(d.partitionAssignor()).isEqualTo("range");
                assertThat(d.groupEpoch()).contains(cluster.group("billing").generation());
                assertThat(d.targetAssignmentEpoch()).isEqualTo(d.groupEpoch());
                assertThat(d.members()).hasSize(2).allSatisfy(m -> {
                    assertThat(m.memberEpoch()).isEqualTo(d.groupEpoch());
                    assertThat(m.assignment().topicPartitions()).hasSize(3);
                    assertThat(m.targetAssignment()).hasValue(m.assignment());
                });
                assertThat(d.members()).extracting(MemberDescription::clientId).containsExactlyInAnyOrder("m1", "m2");

                assertThat(admin.listGroups(ListGroupsOptions.forConsumerGroups().withTypes(Set.of(GroupType.CONSUMER)))
                        .all().get()).extracting(GroupListing::groupId, GroupListing::type, GroupListing::groupState)
                        .containsExactly(org.assertj.core.groups.Tuple.tuple("billing", java.util.Optional.of(GroupType.CONSUMER),
                                java.util.Optional.of(GroupState.STABLE)));
                assertThat(admin.listGroups(ListGroupsOptions.forConsumerGroups().withTypes(Set.of(GroupType.CLASSIC)))
                        .all().get()).as("no classic group").isEmpty();
            } finally {
                members.forEach(c -> c.close(Duration.ofSeconds(5)));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> cluster.group("billing").state() == dev.samsa.GroupState.EMPTY);
            admin.deleteConsumerGroups(List.of("billing")).all().get();
            assertThatThrownBy(() -> admin.describeConsumerGroups(List.of("billing")).all().get())
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(GroupIdNotFoundException.class);
        }
    }
}
