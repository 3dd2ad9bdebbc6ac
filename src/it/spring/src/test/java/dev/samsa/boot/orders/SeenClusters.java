package dev.samsa.boot.orders;

import dev.samsa.KafkaCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.context.ApplicationContext;

/**
 * What each test class ran against, for the classes after it; and every cluster's data directory, in
 * {@code target/samsa-clusters.txt}, for the project's verify.groovy, which checks once the test JVM has exited (and
 * Spring has closed its cached contexts) that none is left: a cluster deletes its directory when it closes.
 */
final class SeenClusters {

    record Seen(ApplicationContext context, KafkaCluster cluster) {
    }

    private static final Map<Class<?>, Seen> BY_CLASS = new ConcurrentHashMap<>();
    private static final Path LIST = Path.of("target", "samsa-clusters.txt");

    static {
        try {
            Files.deleteIfExists(LIST); // a list per test JVM, however often the project runs
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private SeenClusters() {
    }

    static void record(Class<?> testClass, ApplicationContext context, KafkaCluster cluster) {
        BY_CLASS.put(testClass, new Seen(context, cluster));
        try {
            Files.writeString(LIST, cluster.dataDirectory() + System.lineSeparator(), StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Seen by(Class<?> testClass) {
        Seen seen = BY_CLASS.get(testClass);
        if (seen == null) {
            throw new IllegalStateException(testClass.getSimpleName() + " has not run; the project runs classes in @Order");
        }
        return seen;
    }
}
