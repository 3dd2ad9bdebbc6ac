package dev.samsa.group.modern.consumer;

import static dev.samsa.group.modern.consumer.ConsumerGroupStateTest.member;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.event.Timeline;
import dev.samsa.group.modern.MemberState;
import java.util.Map;
import org.apache.kafka.common.errors.StaleMemberEpochException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.junit.jupiter.api.Test;

/** OffsetCommit and OffsetFetch against a consumer group, as Kafka's validateOffsetCommit and validateOffsetFetch. */
class ConsumerGroupOffsetValidationTest {

    private final ConsumerGroup group = new ConsumerGroup("g", new Timeline(() -> 0L, () -> 0L));

    @Test
    void anAdminCommitWithoutEpochIsAcceptedOnlyWhileTheGroupIsEmpty() {
        assertThatCode(() -> group.throwIfOffsetCommitIsInvalid("", -1, (short) 9)).doesNotThrowAnyException();
        group.putMember(member("a", 5, MemberState.STABLE, Map.of()));
        assertThatThrownBy(() -> group.throwIfOffsetCommitIsInvalid("", -1, (short) 9)).isInstanceOf(UnknownMemberIdException.class);
    }

    @Test
    void aMemberCommitsAndFetchesOnlyInItsCurrentEpoch() {
        group.putMember(member("a", 5, MemberState.STABLE, Map.of()));
        assertThatCode(() -> group.throwIfOffsetCommitIsInvalid("a", 5, (short) 9)).doesNotThrowAnyException();
        assertThatThrownBy(() -> group.throwIfOffsetCommitIsInvalid("a", 4, (short) 9)).isInstanceOf(StaleMemberEpochException.class);
        assertThatThrownBy(() -> group.throwIfOffsetCommitIsInvalid("b", 5, (short) 9)).isInstanceOf(UnknownMemberIdException.class);
        assertThatThrownBy(() -> group.throwIfOffsetCommitIsInvalid("a", 5, (short) 8))
                .as("a consumer-protocol member commits with v9+").isInstanceOf(UnsupportedVersionException.class);

        assertThatCode(() -> group.throwIfOffsetFetchIsInvalid(null, -1)).as("admin fetch").doesNotThrowAnyException();
        assertThatCode(() -> group.throwIfOffsetFetchIsInvalid("a", 5)).doesNotThrowAnyException();
        assertThatThrownBy(() -> group.throwIfOffsetFetchIsInvalid("a", 6)).isInstanceOf(StaleMemberEpochException.class);
        assertThatThrownBy(() -> group.throwIfOffsetFetchIsInvalid("b", 5)).isInstanceOf(UnknownMemberIdException.class);
    }
}
