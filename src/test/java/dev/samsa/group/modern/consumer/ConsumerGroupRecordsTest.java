package dev.samsa.group.modern.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.event.Timeline;
import dev.samsa.group.modern.Assignment;
import dev.samsa.group.modern.MemberState;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/** A mixed group's record keeps which members speak the classic protocol, so a new coordinator knows them. */
class ConsumerGroupRecordsTest {

    private final Timeline timeline = new Timeline(() -> 0L, () -> 0L);

    @Test
    void aClassicMembersMetadataSurvivesTheRecord() {
        ConsumerGroup group = new ConsumerGroup("g", timeline);
        Uuid topic = Uuid.randomUuid();
        Assignment assigned = Assignment.of(Map.of(topic, Set.of(0, 1)));
        group.setGroupEpoch(3);
        group.putMember(new ConsumerGroupMember("classic-1", null, null, "c", "/127.0.0.1", List.of("orders"), null, null,
                30_000, 3, 2, MemberState.STABLE, assigned, Assignment.EMPTY));
        group.putMember(new ConsumerGroupMember("modern-1", null, null, "m", "/127.0.0.1", List.of("orders"), null, null,
                30_000, 3, 2, MemberState.STABLE, Assignment.EMPTY, Assignment.EMPTY));
        group.setTargetAssignment(3, Map.of("classic-1", assigned, "modern-1", Assignment.EMPTY));
        group.classicMembers.put("classic-1", new ClassicProtocolMembers.ClassicMember("range", (short) 3, 10_000,
                Set.of("range", "cooperative-sticky")));

        SimpleRecord record = ConsumerGroupRecords.record(0, group);
        ConsumerGroup decoded = ConsumerGroupRecords.decode("g", record.value(), timeline);

        assertThat(decoded.usesClassicProtocol("classic-1")).isTrue();
        assertThat(decoded.usesClassicProtocol("modern-1")).isFalse();
        assertThat(decoded.classicMembers.get("classic-1")).isEqualTo(group.classicMembers.get("classic-1"));
        assertThat(decoded.memberOrNull("classic-1").assignedPartitions()).isEqualTo(assigned);
        assertThat(decoded.groupEpoch()).isEqualTo(3);
    }
}
