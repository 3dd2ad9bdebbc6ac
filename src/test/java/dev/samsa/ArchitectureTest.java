package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The rules of DESIGN.md that a reader cannot check by eye across the whole tree. */
class ArchitectureTest {

    private static final Path MAIN = Path.of("src/main/java/dev/samsa");
    private static final Pattern WALL_CLOCK =
            Pattern.compile("System\\.(currentTimeMillis|nanoTime)\\(|Thread\\.sleep\\(|Instant\\.now\\(|LocalDateTime\\.now\\(");

    @Test
    void brokerCodeReadsTimeOnlyThroughTheClusterClock() throws IOException {
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String relative = MAIN.relativize(file).toString();
                if (relative.startsWith("time/")) {
                    continue;
                }
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    if (WALL_CLOCK.matcher(lines.get(i)).find()) {
                        offenders.add(relative + ":" + (i + 1) + ": " + lines.get(i).trim());
                    }
                }
            }
        }
        assertThat(offenders).as("wall-clock reads outside time/").isEmpty();
    }

    @Test
    void thePublicApiExposesNoKafkaClientsType() {
        List<String> leaks = new ArrayList<>();
        for (Class<?> type : List.of(KafkaCluster.class, KafkaCluster.Builder.class, Broker.class)) {
            for (Method m : type.getDeclaredMethods()) {
                if (!Modifier.isPublic(m.getModifiers())) {
                    continue;
                }
                List<Class<?>> used = new ArrayList<>(List.of(m.getParameterTypes()));
                used.add(m.getReturnType());
                for (Class<?> c : used) {
                    if (c.getName().startsWith("org.apache.kafka")) {
                        leaks.add(type.getSimpleName() + "." + m.getName() + " uses " + c.getName());
                    }
                }
            }
        }
        assertThat(leaks).isEmpty();
    }

    @Test
    void onlyWireAndHandlerTouchKafkaRequestAndResponseMessages() throws IOException {
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String relative = MAIN.relativize(file).toString();
                if (relative.startsWith("wire/") || relative.startsWith("handler/") || relative.startsWith("network/")) {
                    continue;
                }
                for (String line : Files.readAllLines(file)) {
                    if (line.startsWith("import org.apache.kafka.common.message.") || line.startsWith("import org.apache.kafka.common.requests.")) {
                        offenders.add(relative + ": " + line);
                    }
                }
            }
        }
        assertThat(offenders).as("request/response classes outside wire/, network/ and handler/").isEmpty();
    }
}
