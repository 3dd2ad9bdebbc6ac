package dev.samsa.log;

import static dev.samsa.log.LogTestSupport.NOW;
import static dev.samsa.log.LogTestSupport.idempotent;
import static dev.samsa.log.LogTestSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;

import dev.samsa.log.store.MappedStores;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerStateTest {

    private static final long PID = 1000L;

    @TempDir
    Path tmp;

    private PartitionLog log;

    @BeforeEach
    void openLog() throws IOException {
        log = PartitionLog.open(tmp.resolve("payments-0"), LogConfigs.defaults(), MappedStores.detect(), NOW);
    }

    @AfterEach
    void closeLog() {
        log.close();
    }

    @Test
    void shouldReturnTheOriginalOffsetsForARetriedBatchWithoutAppendingIt() {
        log.appendAsLeader(idempotent(PID, (short) 0, 0, "a", "b"), 0, NOW);
        log.appendAsLeader(idempotent(PID, (short) 0, 2, "c"), 0, NOW);

        LogAppendInfo retry = log.appendAsLeader(idempotent(PID, (short) 0, 0, "a", "b"), 0, NOW);

        assertThat(retry).isEqualTo(new LogAppendInfo(0, 1, -1, 0, true));
        assertThat(log.logEndOffset()).isEqualTo(3);
        assertThat(readAll(log, 0)).containsExactly("0:a", "1:b", "2:c");
    }

    @Test
    void shouldRejectASequenceGap() {
        log.appendAsLeader(idempotent(PID, (short) 0, 0, "a"), 0, NOW);

        assertThatThrownBy(() -> log.appendAsLeader(idempotent(PID, (short) 0, 2, "c"), 0, NOW))
                .isInstanceOf(OutOfOrderSequenceException.class).hasMessageContaining("payments-0");
        assertThat(log.logEndOffset()).isEqualTo(1);
    }

    @Test
    void shouldRejectAnOlderEpoch() {
        log.appendAsLeader(idempotent(PID, (short) 3, 0, "a"), 0, NOW);

        assertThatThrownBy(() -> log.appendAsLeader(idempotent(PID, (short) 2, 1, "b"), 0, NOW))
                .isInstanceOf(InvalidProducerEpochException.class);
    }

    @Test
    void shouldRequireSequenceZeroForANewEpochOfAKnownProducer() {
        log.appendAsLeader(idempotent(PID, (short) 0, 0, "a"), 0, NOW);

        assertThatThrownBy(() -> log.appendAsLeader(idempotent(PID, (short) 1, 5, "b"), 0, NOW))
                .isInstanceOf(OutOfOrderSequenceException.class);
        assertThat(log.appendAsLeader(idempotent(PID, (short) 1, 0, "b"), 0, NOW).firstOffset()).isEqualTo(1);
    }

    @Test
    void shouldAcceptAnySequenceFromAnUnknownProducer() {
        assertThat(log.appendAsLeader(idempotent(PID, (short) 0, 42, "a"), 0, NOW).duplicate()).isFalse();
        assertThat(log.appendAsLeader(idempotent(PID, (short) 0, 43, "b"), 0, NOW).firstOffset()).isEqualTo(1);
    }

    @Test
    void shouldWrapTheSequenceAroundIntegerMaxValue() {
        log.appendAsLeader(idempotent(PID, (short) 0, Integer.MAX_VALUE, "a"), 0, NOW);

        assertThat(log.appendAsLeader(idempotent(PID, (short) 0, 0, "b"), 0, NOW).firstOffset()).isEqualTo(1);
    }

    @Test
    void shouldForgetProducersWhoseRecordsWereDeleted() {
        log.appendAsLeader(idempotent(PID, (short) 0, 0, "a"), 0, NOW);
        log.appendAsLeader(idempotent(PID + 1, (short) 0, 0, "b"), 0, NOW);

        log.deleteRecordsBefore(1);

        assertThat(log.appendAsLeader(idempotent(PID, (short) 0, 7, "c"), 0, NOW).firstOffset())
                .as("unknown again, so any sequence").isEqualTo(2);
        assertThatThrownBy(() -> log.appendAsLeader(idempotent(PID + 1, (short) 0, 7, "d"), 0, NOW))
                .isInstanceOf(OutOfOrderSequenceException.class);
    }

    @Test
    void shouldOnlyRememberTheLastFiveBatches() {
        for (int seq = 0; seq < 6; seq++) {
            log.appendAsLeader(idempotent(PID, (short) 0, seq, "v" + seq), 0, NOW);
        }

        assertThat(log.appendAsLeader(idempotent(PID, (short) 0, 1, "v1"), 0, NOW).duplicate()).isTrue();
        assertThatThrownBy(() -> log.appendAsLeader(idempotent(PID, (short) 0, 0, "v0"), 0, NOW))
                .as("the sixth-latest batch is no longer recognised").isInstanceOf(OutOfOrderSequenceException.class);
    }
}
