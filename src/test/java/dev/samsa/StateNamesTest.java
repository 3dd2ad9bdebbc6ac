package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import dev.samsa.group.classic.ClassicGroupState;
import dev.samsa.group.modern.consumer.ConsumerGroupState;
import dev.samsa.txn.TransactionState;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every state a domain state machine can be in has its public enum constant under Kafka's name, so
 * {@code cluster.group(id).state()} and {@code cluster.transaction(id).state()} never fail on a state added to the
 * domain alone.
 */
class StateNamesTest {

    @ParameterizedTest
    @EnumSource(ClassicGroupState.class)
    void everyClassicGroupStateIsAPublicGroupState(ClassicGroupState state) {
        assertThat(GroupState.fromKafkaName(state.toString())).hasToString(state.toString());
    }

    @ParameterizedTest
    @EnumSource(ConsumerGroupState.class)
    void everyConsumerGroupStateIsAPublicGroupState(ConsumerGroupState state) {
        assertThat(GroupState.fromKafkaName(state.toString())).hasToString(state.toString());
    }

    @ParameterizedTest
    @EnumSource(TransactionState.class)
    void everyTransactionStateIsAPublicTxnState(TransactionState state) {
        assertThat(TxnState.fromKafkaName(state.toString())).hasToString(state.toString());
    }
}
