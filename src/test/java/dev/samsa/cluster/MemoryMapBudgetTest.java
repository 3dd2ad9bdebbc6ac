package dev.samsa.cluster;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.kafka.common.errors.PolicyViolationException;
import org.junit.jupiter.api.Test;

class MemoryMapBudgetTest {

    @Test
    void shouldAdmitReplicasUpToNineTenthsOfTheLimitAndNameTheNumbersBeyond() {
        // 65,530 is Linux's default vm.max_map_count: 58,977 usable, 3,000 already mapped by the JVM.
        assertThatCode(() -> MemoryMapBudget.check(55_977, 3_000, 65_530)).doesNotThrowAnyException();

        assertThatThrownBy(() -> MemoryMapBudget.check(55_978, 3_000, 65_530))
                .isInstanceOf(PolicyViolationException.class)
                .hasMessageContaining("Creating 55978 partition replicas needs about 55978 more memory mappings")
                .hasMessageContaining("has 3000 of its limit of 65530 (vm.max_map_count)");
    }
}
