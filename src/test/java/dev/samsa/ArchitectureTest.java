package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
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
            "handler", java.util.Set.of("cluster", "group", "log", "network", "wire", "time", "event", "fault"));

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

    /**
     * Types of the internal packages that the public API hands out on purpose (DESIGN.md): the cluster clock a test
     * builds and advances, and the timeline it reads. Their own signatures are checked like the public packages'.
     */
    private static final Set<String> PUBLISHED_INTERNAL_TYPES = Set.of("dev.samsa.time.ClusterClock");
    private static final Set<String> PUBLISHED_INTERNAL_PACKAGES = Set.of("dev.samsa.event");

    /** DESIGN.md's exception: dev.samsa.junit reads topics with the user's own KafkaConsumer and Deserializer. */
    private static final Set<String> KAFKA_CLIENTS_PACKAGES_IN_JUNIT =
            Set.of("org.apache.kafka.common.serialization", "org.apache.kafka.clients.consumer");

    /**
     * Every public type of dev.samsa and dev.samsa.junit, and every type their public and protected signatures reach
     * (supertypes, fields, constructors, methods, thrown exceptions, type arguments), names no internal type but the
     * published ones and no kafka-clients type but those dev.samsa.junit may use.
     */
    @Test
    void thePublicSurfaceNamesNoInternalOrKafkaClientsType() throws IOException {
        Deque<Class<?>> toCheck = new ArrayDeque<>();
        for (String pkg : List.of("dev.samsa", "dev.samsa.junit")) {
            try (Stream<Path> files = Files.list(Path.of("target/classes", pkg.replace('.', '/')))) {
                for (Path file : files.filter(f -> f.toString().endsWith(".class")).sorted().toList()) {
                    String name = file.getFileName().toString().replace(".class", "");
                    if (!name.equals("package-info")) {
                        toCheck.add(load(pkg + "." + name));
                    }
                }
            }
        }
        Set<Class<?>> checked = new HashSet<>();
        Set<String> leaks = new TreeSet<>();
        while (!toCheck.isEmpty()) {
            Class<?> type = toCheck.poll();
            if (!isPublicType(type) || !checked.add(type)) {
                continue;
            }
            for (Class<?> used : typesInSignatures(type)) {
                String name = used.getName();
                String pkg = used.getPackageName();
                if (name.startsWith("org.apache.kafka.")) {
                    if (!(type.getPackageName().equals("dev.samsa.junit") && KAFKA_CLIENTS_PACKAGES_IN_JUNIT.contains(pkg))) {
                        leaks.add(type.getName() + " names kafka-clients' " + name);
                    }
                } else if (pkg.equals("dev.samsa") || pkg.equals("dev.samsa.junit")) {
                    toCheck.add(used);
                } else if (pkg.startsWith("dev.samsa.")) {
                    if (PUBLISHED_INTERNAL_TYPES.contains(name) || PUBLISHED_INTERNAL_PACKAGES.contains(pkg)) {
                        toCheck.add(used);
                    } else {
                        leaks.add(type.getName() + " names the internal " + name);
                    }
                }
            }
        }
        assertThat(checked).as("public types found").hasSizeGreaterThan(20);
        assertThat(leaks).as("public signatures that name internal or kafka-clients types").isEmpty();
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, ArchitectureTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("Compiled class " + name + " cannot be loaded", e);
        }
    }

    private static boolean isPublicType(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getEnclosingClass()) {
            if (!Modifier.isPublic(c.getModifiers())) {
                return false;
            }
        }
        return true;
    }

    private static Set<Class<?>> typesInSignatures(Class<?> type) {
        List<Type> types = new ArrayList<>(List.of(type.getGenericInterfaces()));
        if (type.getGenericSuperclass() != null) {
            types.add(type.getGenericSuperclass());
        }
        for (Field f : type.getDeclaredFields()) {
            if (isVisible(f.getModifiers())) {
                types.add(f.getGenericType());
            }
        }
        for (Executable e : concat(type.getDeclaredConstructors(), type.getDeclaredMethods())) {
            if (isVisible(e.getModifiers())) {
                types.addAll(List.of(e.getGenericParameterTypes()));
                types.addAll(List.of(e.getGenericExceptionTypes()));
                if (e instanceof Method m) {
                    types.add(m.getGenericReturnType());
                }
            }
        }
        Set<Class<?>> classes = new HashSet<>();
        Set<Type> seen = new HashSet<>();
        types.forEach(t -> collectClasses(t, classes, seen));
        return classes;
    }

    private static boolean isVisible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static List<Executable> concat(Executable[] a, Executable[] b) {
        List<Executable> all = new ArrayList<>(List.of(a));
        all.addAll(List.of(b));
        return all;
    }

    private static void collectClasses(Type t, Set<Class<?>> out, Set<Type> seen) {
        if (!seen.add(t)) {
            return;
        }
        if (t instanceof Class<?> c) {
            while (c.isArray()) {
                c = c.getComponentType();
            }
            out.add(c);
        } else if (t instanceof ParameterizedType p) {
            collectClasses(p.getRawType(), out, seen);
            for (Type arg : p.getActualTypeArguments()) {
                collectClasses(arg, out, seen);
            }
        } else if (t instanceof WildcardType w) {
            for (Type bound : w.getUpperBounds()) {
                collectClasses(bound, out, seen);
            }
            for (Type bound : w.getLowerBounds()) {
                collectClasses(bound, out, seen);
            }
        } else if (t instanceof TypeVariable<?> v) {
            for (Type bound : v.getBounds()) {
                collectClasses(bound, out, seen);
            }
        } else if (t instanceof GenericArrayType g) {
            collectClasses(g.getGenericComponentType(), out, seen);
        }
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
