package dev.samsa.junit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.assertj.core.api.AbstractAssert;
import org.assertj.core.api.Assertions;
import org.assertj.core.api.ListAssert;

/**
 * Assertions on what a topic holds, read once when {@link KafkaClusterAssert#topic} was called. Every failure message
 * shows the whole topic: each partition's offsets and every record.
 *
 * @param <V> the type the value deserializer gives
 */
public final class TopicAssert<V> extends AbstractAssert<TopicAssert<V>, TopicRecords<V>> {

    TopicAssert(TopicRecords<V> records) {
        super(records, TopicAssert.class);
    }

    /** Records the topic holds, in all partitions (control records of transactions not counted). */
    public TopicAssert<V> hasRecordCount(long expected) {
        if (actual.records().size() != expected) {
            fail("to have " + expected + " record(s) but it has " + actual.records().size());
        }
        return this;
    }

    public TopicAssert<V> isEmpty() {
        return hasRecordCount(0);
    }

    /** Each given value is among the topic's values, in any partition and order. */
    @SafeVarargs
    public final TopicAssert<V> containsValues(V... expected) {
        List<V> values = actual.values();
        List<V> missing = Arrays.stream(expected).filter(v -> values.stream().noneMatch(a -> Objects.equals(a, v))).toList();
        if (!missing.isEmpty()) {
            fail("to contain values " + TopicRecords.show(Arrays.asList(expected)) + " but it lacks " + TopicRecords.show(missing));
        }
        return this;
    }

    /** The topic's values are exactly these, in partition then offset order (for one partition: the order produced). */
    @SafeVarargs
    public final TopicAssert<V> containsExactlyValues(V... expected) {
        List<V> values = actual.values();
        if (!values.equals(new ArrayList<>(Arrays.asList(expected)))) {
            fail("to contain exactly the values " + TopicRecords.show(Arrays.asList(expected)) + " but it has "
                    + TopicRecords.show(values));
        }
        return this;
    }

    /** The values in partition then offset order, for any other AssertJ list assertion. */
    public ListAssert<V> values() {
        return Assertions.assertThat(actual.values()).as(descriptionText().isEmpty()
                ? "values of topic \"" + actual.topic() + "\"" : descriptionText());
    }

    private void fail(String expectation) {
        failWithMessage("%s", "Expected topic \"" + actual.topic() + "\" " + expectation + ".\nActual: " + actual.describe());
    }
}
