package dev.samsa.cli.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The endpoint's hand-written JSON: what it reads, what it writes, and how it names what is not JSON. */
class JsonTest {

    @Test
    void readsObjectsArraysStringsNumbersBooleansAndNullInOrder() {
        Object value = Json.parse(" {\"b\": [1, -2.5e1, true, false, null], \"a\": \"x\\\"\\n\\u00e9\\/\", \"c\": {}} ");
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("b", Arrays.asList(1L, -25.0, true, false, null));
        expected.put("a", "x\"\né/");
        expected.put("c", Map.of());
        assertThat(value).isEqualTo(expected);
        assertThat(new ArrayList<Object>(((Map<?, ?>) value).keySet())).containsExactly("b", "a", "c");
    }

    @Test
    void writesRecordsEnumsDurationsInstantsAndOptionals() {
        record Point(String name, int x, List<Long> ys, Duration delay, Instant at, Optional<String> note, Thread.State s) {
        }
        assertThat(Json.write(new Point("p\t\u0001", 3, List.of(1L), Duration.ofSeconds(2), Instant.EPOCH, Optional.empty(),
                Thread.State.NEW))).isEqualTo("{\"name\":\"p\\t\\u0001\",\"x\":3,\"ys\":[1],\"delay\":2000,"
                        + "\"at\":\"1970-01-01T00:00:00Z\",\"note\":null,\"s\":\"NEW\"}");
        assertThat(Json.parse(Json.write(Map.of("k", "\u2028")))).isEqualTo(Map.of("k", "\u2028"));
    }

    @Test
    void malformedInputNamesThePositionAndTheProblem() {
        assertThatThrownBy(() -> Json.parse("{\"a\":1,}")).hasMessage("Malformed JSON at character 7: expected a quoted field name");
        assertThatThrownBy(() -> Json.parse("[1 2]")).hasMessage("Malformed JSON at character 4: expected ',' or ']' in an array");
        assertThatThrownBy(() -> Json.parse("{} x")).hasMessage("Malformed JSON at character 3: unexpected 'x' after the value");
        assertThatThrownBy(() -> Json.parse("\"open")).hasMessage("Malformed JSON at character 5: the body ends inside a value");
        assertThatThrownBy(() -> Json.parse("tru")).hasMessage("Malformed JSON at character 0: unexpected 't'");
        assertThatThrownBy(() -> Json.parse("1-2")).hasMessage("Malformed JSON at character 0: '1-2' is not a number");
        assertThatThrownBy(() -> Json.parse("\"\\q\"")).hasMessage("Malformed JSON at character 3: unknown escape \\q");
        assertThatThrownBy(() -> Json.parse("")).hasMessage("Malformed JSON at character 0: the body ends where a value should be");
    }
}
