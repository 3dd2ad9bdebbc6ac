package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
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
    /** The compiled main classes, the JUnit extension's included: what runs, however the source spells a call. */
    private static final Path CLASSES = Path.of("target/classes");

    /** Methods that read the wall clock or wait in it, as {@code owner.name} in the class file's constant pool. */
    private static final Set<String> WALL_CLOCK = Set.of(
            "java/lang/System.currentTimeMillis", "java/lang/System.nanoTime", "java/lang/Thread.sleep",
            "java/util/concurrent/TimeUnit.sleep", "java/time/Instant.now", "java/time/LocalDateTime.now",
            "java/time/LocalDate.now", "java/time/LocalTime.now", "java/time/ZonedDateTime.now",
            "java/time/OffsetDateTime.now", "java/time/Clock.systemUTC", "java/time/Clock.systemDefaultZone",
            "java/time/Clock.system", "dev/samsa/time/ClusterLoop.wallMillis");

    /**
     * Where wall time may be read: time/ (the clocks and the loop that owns wall time; network/ gets it from the loop
     * as a parameter, for SASL session lifetimes), and the named waits that protect a test thread or a real client from hanging whatever the cluster clock does.
     */
    private static final List<String> MAY_READ_WALL_CLOCK = List.of(
            "dev/samsa/time/",
            // hands the loop's wall time to Timeline.await, which a test thread calls
            "dev/samsa/KafkaCluster.", "dev/samsa/KafkaCluster$",
            // reads a topic to its end on the test thread, bounded in wall time
            "dev/samsa/junit/TopicRecords.", "dev/samsa/junit/TopicRecords$");

    @Test
    void brokerCodeReadsTimeOnlyThroughTheClusterClock() throws IOException {
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(CLASSES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = CLASSES.relativize(file).toString().replace('\\', '/');
                if (MAY_READ_WALL_CLOCK.stream().anyMatch(name::startsWith)) {
                    continue;
                }
                for (String method : referencedMethods(Files.readAllBytes(file))) {
                    if (WALL_CLOCK.contains(method)) {
                        offenders.add(name + " calls " + method);
                    }
                }
            }
        }
        assertThat(offenders).as("wall-clock reads outside time/ and the named client-protecting waits").isEmpty();
    }

    @Test
    void theWallClockCheckSeesFullyQualifiedNamesMethodReferencesAndSplitLines() throws IOException {
        assertThat(referencedMethods(Files.readAllBytes(CLASSES.resolve("dev/samsa/time/SystemClock.class"))))
                .as("SystemClock calls System.currentTimeMillis()").contains("java/lang/System.currentTimeMillis");
        assertThat(referencedMethods(Files.readAllBytes(CLASSES.resolve("dev/samsa/time/ClusterLoop.class"))))
                .as("ClusterLoop passes System::nanoTime").contains("java/lang/System.nanoTime");
        Path self = Path.of("target/test-classes", WallClockReads.class.getName().replace('.', '/') + ".class");
        assertThat(referencedMethods(Files.readAllBytes(self)))
                .contains("java/lang/System.nanoTime", "java/lang/System.currentTimeMillis", "java/time/Instant.now");
    }

    /** Three spellings a source scan for "System.nanoTime(" would miss. */
    @SuppressWarnings("unused")
    private static final class WallClockReads {
        long fullyQualified() {
            return java.lang.System.currentTimeMillis();
        }

        java.util.function.LongSupplier methodReference() {
            return System::nanoTime;
        }

        Object spaced() {
            return java.time.Instant
                    .now();
        }
    }

    /**
     * Every method a class file refers to, as {@code owner.name}: its constant pool's Methodref and
     * InterfaceMethodref entries, which every call and method reference goes through.
     */
    private static Set<String> referencedMethods(byte[] classFile) throws IOException {
        ConstantPool pool = ConstantPool.read(classFile);
        Set<String> methods = new TreeSet<>();
        for (int[] ref : pool.refs) {
            if (ref != null) {
                methods.add(pool.utf8[pool.classNames[ref[0]]] + "." + pool.utf8[pool.nameAndTypeNames[ref[1]]]);
            }
        }
        return methods;
    }

    /** The parts of a class file's constant pool these checks read (JVMS 4.4), indexed by entry. */
    private record ConstantPool(String[] utf8, int[] classNames, int[][] refs, int[] nameAndTypeNames) {

        static ConstantPool read(byte[] classFile) throws IOException {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
            if (in.readInt() != 0xCAFEBABE) {
                throw new IOException("Not a class file");
            }
            in.readUnsignedShort();
            in.readUnsignedShort();
            int count = in.readUnsignedShort();
            ConstantPool pool = new ConstantPool(new String[count], new int[count], new int[count][], new int[count]);
            for (int i = 1; i < count; i++) {
                int tag = in.readUnsignedByte();
                switch (tag) {
                    case 1 -> pool.utf8[i] = in.readUTF();
                    case 7 -> pool.classNames[i] = in.readUnsignedShort();
                    case 10, 11 -> pool.refs[i] = new int[] {in.readUnsignedShort(), in.readUnsignedShort()};
                    case 12 -> {
                        pool.nameAndTypeNames[i] = in.readUnsignedShort();
                        in.readUnsignedShort();
                    }
                    case 8, 16, 19, 20 -> in.readUnsignedShort();
                    case 15 -> {
                        in.readUnsignedByte();
                        in.readUnsignedShort();
                    }
                    case 3, 4, 9, 17, 18 -> in.readInt();
                    case 5, 6 -> {
                        in.readLong();
                        i++; // a long or double takes two entries
                    }
                    default -> throw new IOException("Unknown constant pool tag " + tag + " at entry " + i);
                }
            }
            return pool;
        }
    }

    /** DESIGN.md's one-way dependencies: which internal packages each package may use. */
    private static final java.util.Map<String, java.util.Set<String>> ALLOWED = java.util.Map.ofEntries(
            java.util.Map.entry("time", java.util.Set.<String>of()),
            java.util.Map.entry("event", java.util.Set.<String>of()),
            java.util.Map.entry("fault", java.util.Set.<String>of()),
            java.util.Map.entry("wire", java.util.Set.<String>of()),
            java.util.Map.entry("security", java.util.Set.<String>of()),
            java.util.Map.entry("log", java.util.Set.of("time")),
            java.util.Map.entry("network", java.util.Set.of("security", "wire")),
            java.util.Map.entry("cluster", java.util.Set.of("event", "fault", "log", "time")),
            java.util.Map.entry("coordinator", java.util.Set.of("cluster", "event", "log", "time")),
            java.util.Map.entry("group", java.util.Set.of("cluster", "coordinator", "event", "log", "time")),
            java.util.Map.entry("txn", java.util.Set.of("cluster", "coordinator", "event", "fault", "log", "time")),
            java.util.Map.entry("handler", java.util.Set.of("cluster", "coordinator", "group", "txn", "network", "security", "wire", "time",
                    "event", "fault")));

    /**
     * DESIGN.md's one-way dependencies, read from the class files: every type a class names (in code, signatures or
     * descriptors), however the source spells it, imported or fully qualified.
     */
    @Test
    void dependenciesPointOneWay() throws IOException {
        Pattern internal = Pattern.compile("dev/samsa/([a-z]+)/");
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(CLASSES.resolve("dev/samsa"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String relative = CLASSES.resolve("dev/samsa").relativize(file).toString().replace('\\', '/');
                int slash = relative.indexOf('/');
                if (slash < 0) {
                    continue; // the public package may use everything
                }
                String pkg = relative.substring(0, slash);
                java.util.Set<String> allowed = ALLOWED.get(pkg);
                if (allowed == null) {
                    continue;
                }
                Set<String> used = new TreeSet<>();
                for (String constant : ConstantPool.read(Files.readAllBytes(file)).utf8) {
                    java.util.regex.Matcher m = internal.matcher(constant == null ? "" : constant);
                    while (m.find()) {
                        used.add(m.group(1));
                    }
                }
                used.remove(pkg);
                used.removeAll(allowed);
                used.forEach(u -> offenders.add(relative + " uses dev.samsa." + u));
            }
        }
        assertThat(offenders).as("dependencies against DESIGN.md's layering").isEmpty();
    }

    /**
     * The transaction coordinator's classes run on {@code TransactionCoordinatorContext} (so a unit test needs no
     * cluster loop); only {@code TransactionCoordinator}, whose nested class is the cluster's context, names the
     * cluster or its faults.
     */
    @Test
    void onlyTheTransactionCoordinatorInTxnKnowsTheCluster() throws IOException {
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.list(CLASSES.resolve("dev/samsa/txn"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = file.getFileName().toString();
                if (name.equals("TransactionCoordinator.class") || name.startsWith("TransactionCoordinator$")) {
                    continue;
                }
                for (String constant : ConstantPool.read(Files.readAllBytes(file)).utf8) {
                    if (constant != null && (constant.contains("dev/samsa/cluster/") || constant.contains("dev/samsa/fault/"))) {
                        offenders.add(name + " uses " + constant);
                    }
                }
            }
        }
        assertThat(offenders).as("txn/ classes that reach past TransactionCoordinatorContext").isEmpty();
    }

    /** Records reach an internal topic one way, the runtime's write; a handler asks its coordinator and never names it. */
    @Test
    void noHandlerNamesTheCoordinatorWrite() throws IOException {
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.list(CLASSES.resolve("dev/samsa/handler"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                for (String constant : ConstantPool.read(Files.readAllBytes(file)).utf8) {
                    if (constant != null && (constant.contains("dev/samsa/coordinator/CoordinatorResult")
                            || constant.contains("dev/samsa/coordinator/CoordinatorRuntime$"))) {
                        offenders.add(file.getFileName() + " uses " + constant);
                    }
                }
            }
        }
        assertThat(offenders).as("handlers that name the coordinator runtime's write").isEmpty();
    }

    /**
     * The classic group's request phases call the one rebalance engine and never each other, and the engine never
     * calls back up into a phase, so a rebalance has one place to read.
     */
    @Test
    void theClassicRequestPhasesCallOnlyTheRebalanceEngine() throws IOException {
        List<String> phases = List.of("ClassicGroupJoin", "ClassicGroupSync", "ClassicGroupLiveness");
        Path classic = CLASSES.resolve("dev/samsa/group/classic");
        List<String> offenders = new ArrayList<>();
        for (String caller : List.of("ClassicGroupJoin", "ClassicGroupSync", "ClassicGroupLiveness", "ClassicGroupRebalancer")) {
            for (String constant : ConstantPool.read(Files.readAllBytes(classic.resolve(caller + ".class"))).utf8) {
                for (String phase : phases) {
                    if (!phase.equals(caller) && constant != null && constant.contains("dev/samsa/group/classic/" + phase)) {
                        offenders.add(caller + " uses " + phase);
                    }
                }
            }
        }
        assertThat(offenders).as("calls between the classic request phases").isEmpty();
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
