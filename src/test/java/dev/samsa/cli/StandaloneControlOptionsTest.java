package dev.samsa.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The launcher's --control-port and --clock, parsed in process; StandaloneControlTest runs them in a launcher. */
class StandaloneControlOptionsTest {

    @Test
    void clockManualStartsAtTheDefaultInstantOrTheOneGiven() {
        try (KafkaCluster cluster = Standalone.parse(new String[] {"--clock", "manual"}).start()) {
            assertThat(cluster.clock().isManual()).isTrue();
            assertThat(cluster.clock().instant()).isEqualTo(Instant.parse(Standalone.DEFAULT_MANUAL_START));
        }
        try (KafkaCluster cluster = Standalone.parse(new String[] {"--clock", "manual:2030-05-06T07:08:09Z"}).start()) {
            assertThat(cluster.clock().instant()).isEqualTo(Instant.parse("2030-05-06T07:08:09Z"));
        }
        try (KafkaCluster cluster = Standalone.parse(new String[] {"--clock", "system", "--control-port", "0"}).start()) {
            assertThat(cluster.clock().isManual()).isFalse();
        }
    }

    @Test
    void aBadClockOrControlPortNamesWhatIsWrong() {
        assertThatThrownBy(() -> Standalone.parse(new String[] {"--clock", "manual:yesterday"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--clock manual:START expects an ISO-8601 instant such as 2026-01-01T00:00:00Z, got 'yesterday'");
        assertThatThrownBy(() -> Standalone.parse(new String[] {"--clock", "wall"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--clock expects system, manual or manual:2026-01-01T00:00:00Z, got 'wall'");
        assertThatThrownBy(() -> Standalone.parse(new String[] {"--control-port", "70000"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--control-port must be 0..65535, got 70000");
        assertThatThrownBy(() -> Standalone.parse(new String[] {"--control-port", "any"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--control-port expects a number, got 'any'");
    }

    @Test
    void helpListsTheControlOptions() throws Exception {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), "dev.samsa.cli.Standalone", "--help"));
        Process process = new ProcessBuilder(command).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor()).isZero();
        assertThat(out).contains("[--control-port P]", "[--clock system|manual[:2026-01-01T00:00:00Z]]");
    }
}
