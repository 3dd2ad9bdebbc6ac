package dev.samsa.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A topic that {@link EmbeddedKafkaCluster#topics()} creates before any test code runs.
 *
 * <pre>{@code
 * @EmbeddedKafkaCluster(topics = @Topic(name = "orders", partitions = 3, config = "cleanup.policy=compact"))
 * }</pre>
 */
@Target({})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Topic {

    String name();

    int partitions() default 1;

    int replicationFactor() default 1;

    /** Topic configs as {@code "key=value"}, e.g. {@code "retention.ms=1000"}. */
    String[] config() default {};
}
