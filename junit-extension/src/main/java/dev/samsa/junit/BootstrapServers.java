package dev.samsa.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code String} parameter that receives the cluster's bootstrap servers,
 * {@code "127.0.0.1:p1,127.0.0.1:p2,..."}. Unlike the {@value EmbeddedKafkaCluster#SPRING_BOOTSTRAP_SERVERS_PROPERTY}
 * system property, the injected value is the test's own cluster even when classes run in parallel.
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface BootstrapServers {
}
