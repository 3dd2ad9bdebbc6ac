package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
     * Where wall time may be read: time/ (the clocks and the loop that owns wall time), network/ (socket timeouts),
     * and the named waits that protect a test thread or a real client from hanging whatever the cluster clock does.
     */
    private static final List<String> MAY_READ_WALL_CLOCK = List.of(
            "dev/samsa/time/", "dev/samsa/network/",
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
        assertThat(offenders).as("wall-clock reads outside time/, network/ and the named client-protecting waits").isEmpty();
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
