package dev.samsa.group.classic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** DESIGN.md's liveness rule on a member, with the loop's wall time given by the test. */
class ClassicGroupMemberTest {

    @Test
    void silentOnlyAfterItsHeartbeatIntervalOfWallTimeOrOnceItsConnectionClosed() {
        ClassicGroupMember member = new ClassicGroupMember("m-1", null, "client", "/127.0.0.1", 30_000, 45_000,
                "consumer", List.of(), 1_000);

        // Before two heartbeats the interval is estimated as session.timeout.ms / 3.
        assertThat(member.silentInWallTime(1_000 + 15_000)).isFalse();
        assertThat(member.silentInWallTime(1_000 + 15_001)).isTrue();

        member.heartbeat("1/127.0.0.1:5000", 20_000);
        member.heartbeat("1/127.0.0.1:5000", 23_000);
        assertThat(member.heartbeatIntervalEstimateMs()).isEqualTo(3_000);
        assertThat(member.wallMsSinceHeard(25_500)).isEqualTo(2_500);
        assertThat(member.silentInWallTime(26_000)).isFalse();
        assertThat(member.silentInWallTime(26_001)).isTrue();

        assertThat(member.connectionClosed("1/127.0.0.1:5000")).isTrue();
        assertThat(member.silentInWallTime(23_000)).isTrue();
    }
}
