package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Api and KafkaError are named as Kafka names them, so every constant must have its kafka-clients twin. */
class PublicEnumsTest {

    @Test
    void everyApiIsAKafkaApiKey() {
        for (Api api : Api.values()) {
            assertThat(api.toApiKey().name()).isEqualTo(api.name());
        }
    }

    @Test
    void everyKafkaErrorIsAKafkaErrorCode() {
        for (KafkaError error : KafkaError.values()) {
            assertThat(error.toErrors().name()).isEqualTo(error.name());
        }
    }
}
