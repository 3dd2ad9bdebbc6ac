package dev.samsa.group.modern.consumer;

import static dev.samsa.group.modern.consumer.ConsumerGroupStateTest.member;
import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.group.modern.Assignment;
import dev.samsa.group.modern.MemberState;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** Reconciliation of one member, as Kafka's CurrentAssignmentBuilder: revoke before anyone else is assigned. */
class CurrentAssignmentBuilderTest {

    private static final Uuid T = new Uuid(7, 7);

    private static Assignment a(Integer... partitions) {
        return Assignment.of(Map.of(T, Set.of(partitions)));
    }

    @Test
    void aMemberThatLosesPartitionsStaysInItsEpochUntilItNoLongerOwnsThem() {
        ConsumerGroupMember m = member("a", 1, MemberState.STABLE, Map.of(T, Set.of(0, 1, 2)));

        ConsumerGroupMember revoking = CurrentAssignmentBuilder.reconcile(m, 2, a(0, 1), (t, p) -> -1, a(0, 1, 2));
        assertThat(revoking.state()).isEqualTo(MemberState.UNREVOKED_PARTITIONS);
        assertThat(revoking.memberEpoch()).as("no new epoch before the revocation").isEqualTo(1);
        assertThat(revoking.assignedPartitions()).isEqualTo(a(0, 1));
        assertThat(revoking.partitionsPendingRevocation()).isEqualTo(a(2));

        ConsumerGroupMember stillOwning = CurrentAssignmentBuilder.reconcile(revoking, 2, a(0, 1), (t, p) -> -1, a(0, 1, 2));
        assertThat(stillOwning).as("a heartbeat that still lists partition 2").isEqualTo(revoking);

        ConsumerGroupMember revoked = CurrentAssignmentBuilder.reconcile(revoking, 2, a(0, 1), (t, p) -> -1, a(0, 1));
        assertThat(revoked.state()).isEqualTo(MemberState.STABLE);
        assertThat(revoked.memberEpoch()).isEqualTo(2);
        assertThat(revoked.previousMemberEpoch()).isEqualTo(1);
        assertThat(revoked.partitionsPendingRevocation().isEmpty()).isTrue();
    }

    @Test
    void aHeartbeatThatDoesNotSayWhatItOwnsIsAssumedToOwnEverything() {
        ConsumerGroupMember m = member("a", 1, MemberState.STABLE, Map.of(T, Set.of(0, 1)));
        assertThat(CurrentAssignmentBuilder.reconcile(m, 2, a(0), (t, p) -> -1, null).state())
                .isEqualTo(MemberState.UNREVOKED_PARTITIONS);
    }

    @Test
    void aPartitionStillHeldByAnotherMemberIsNotGivenUntilReleased() {
        ConsumerGroupMember m = member("b", 0, MemberState.STABLE, Map.of());
        // Partition 2 is still held by a member in epoch 1, partition 3 is free.
        ConsumerGroupMember waiting = CurrentAssignmentBuilder.reconcile(m, 2, a(2, 3), (t, p) -> p == 2 ? 1 : -1, a());
        assertThat(waiting.state()).isEqualTo(MemberState.UNRELEASED_PARTITIONS);
        assertThat(waiting.memberEpoch()).isEqualTo(2);
        assertThat(waiting.assignedPartitions()).isEqualTo(a(3));

        ConsumerGroupMember released = CurrentAssignmentBuilder.reconcile(waiting, 2, a(2, 3), (t, p) -> -1, a(3));
        assertThat(released.state()).isEqualTo(MemberState.STABLE);
        assertThat(released.assignedPartitions()).isEqualTo(a(2, 3));
    }

    @Test
    void aStableMemberInTheTargetEpochIsLeftAlone() {
        ConsumerGroupMember m = member("a", 3, MemberState.STABLE, Map.of(T, Set.of(0)));
        assertThat(CurrentAssignmentBuilder.reconcile(m, 3, a(1), (t, p) -> -1, a(0))).isSameAs(m);
    }
}
