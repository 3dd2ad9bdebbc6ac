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

    /** DESIGN.md's one-way dependencies: which internal packages each package may import. */
    private static final java.util.Map<String, java.util.Set<String>> ALLOWED = java.util.Map.of(
            "time", java.util.Set.of(),
            "event", java.util.Set.of(),
            "fault", java.util.Set.of(),
            "wire", java.util.Set.of(),
            "log", java.util.Set.of("time"),
            "network", java.util.Set.of("wire"),
            "cluster", java.util.Set.of("event", "fault", "log", "time"),
            "group", java.util.Set.of("cluster", "event", "log", "time"),
            "handler", java.util.Set.of("cluster", "group", "network", "wire", "time", "event", "fault"));

    @Test
    void dependenciesPointOneWay() throws IOException {
        Pattern internal = Pattern.compile("^import (?:static )?dev\\.samsa\\.([a-z]+)\\.");
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(MAIN)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String relative = MAIN.relativize(file).toString();
                int slash = relative.indexOf('/');
                if (slash < 0) {
                    continue; // the public package may use everything
                }
                String pkg = relative.substring(0, slash);
                java.util.Set<String> allowed = ALLOWED.get(pkg);
                if (allowed == null) {
                    continue;
                }
                for (String line : Files.readAllLines(file)) {
                    java.util.regex.Matcher m = internal.matcher(line);
                    if (m.find() && !m.group(1).equals(pkg) && !allowed.contains(m.group(1))) {
                        offenders.add(relative + ": " + line);
                    }
                }
            }
        }
        assertThat(offenders).as("imports against DESIGN.md's layering").isEmpty();
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
