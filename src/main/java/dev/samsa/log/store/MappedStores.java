package dev.samsa.log.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Picks the {@link MappedStoreFactory}: chronicle-bytes where this JVM lets it reach the JDK
 * internals it needs, else {@code FileChannel.map}. Both keep the same files, so a log written by
 * one opens with the other.
 */
public final class MappedStores {

    /**
     * The flags that let chronicle run on Java 17+, space-separated: the pom's {@code chronicle.jvm.flags}, the one
     * list, which the build writes into the resource this reads.
     */
    public static String chronicleJvmFlags() {
        return Flags.CHRONICLE_JVM_FLAGS;
    }

    private static final Logger LOG = LoggerFactory.getLogger(MappedStores.class);
    private static final MappedStoreFactory CHRONICLE = new Factory("chronicle", true);
    private static final MappedStoreFactory JDK = new Factory("jdk", false);

    private MappedStores() {
    }

    /**
     * Chronicle if it works in this JVM, else the JDK store. The probe runs once per JVM, since
     * the answer depends only on the JVM's flags, and its one log line names the flags to add.
     */
    public static MappedStoreFactory detect() {
        return Detected.FACTORY;
    }

    /**
     * {@link #detect()} on a thread of its own, started once per JVM: loading chronicle and its posix layer takes as
     * long as loading kafka-clients' protocol schemas, and a first cluster needs both.
     */
    public static CompletableFuture<MappedStoreFactory> detectInBackground() {
        return InBackground.FACTORY;
    }

    /**
     * {@code factory} as one cluster uses it: {@link MappedStoreFactory#awaitReleased} waits only once this cluster has
     * opened a store, since chronicle's wait takes at least a millisecond even when nothing is pending, and a cluster
     * that never held a file has nothing to wait for.
     */
    public static MappedStoreFactory forOneCluster(MappedStoreFactory factory) {
        return new OneCluster(factory);
    }

    private static final class OneCluster implements MappedStoreFactory {
        private final MappedStoreFactory factory;
        private volatile boolean opened;

        OneCluster(MappedStoreFactory factory) {
            this.factory = factory;
        }

        @Override
        public MappedStore open(Path file) throws IOException {
            opened = true;
            return factory.open(file);
        }

        @Override
        public MappedStore create(Path file) {
            opened = true;
            return factory.create(file);
        }

        @Override
        public void awaitReleased() {
            if (opened) {
                factory.awaitReleased();
            }
        }

        @Override
        public String name() {
            return factory.name();
        }

        @Override
        public String toString() {
            return factory.toString();
        }
    }

    /** Chronicle-bytes, which fails on first use in a JVM without {@link #chronicleJvmFlags()}. */
    public static MappedStoreFactory chronicle() {
        return CHRONICLE;
    }

    public static MappedStoreFactory jdk() {
        return JDK;
    }

    private static final class Flags {
        static final String CHRONICLE_JVM_FLAGS = read();

        private static String read() {
            String resource = "chronicle-jvm-flags";
            try (InputStream in = MappedStores.class.getResourceAsStream(resource)) {
                String flags = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
                if (!flags.startsWith("--add-")) {
                    // Absent, or copied without Maven's resource filtering, which puts the pom's list in.
                    throw new IllegalStateException("The resource " + resource + " next to " + MappedStores.class.getName()
                            + " does not hold chronicle's JVM flags but \"" + flags + "\"");
                }
                return flags;
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read the resource " + resource, e);
            }
        }
    }

    private static final class InBackground {
        static final CompletableFuture<MappedStoreFactory> FACTORY = start();

        private static CompletableFuture<MappedStoreFactory> start() {
            CompletableFuture<MappedStoreFactory> factory = new CompletableFuture<>();
            Thread probe = new Thread(() -> {
                try {
                    factory.complete(detect());
                } catch (Throwable e) {
                    factory.completeExceptionally(e);
                }
            }, "samsa-store-probe");
            probe.setDaemon(true);
            probe.start();
            return factory;
        }
    }

    private static final class Detected {
        static final MappedStoreFactory FACTORY = probe();

        private static MappedStoreFactory probe() {
            String missing = missingFlags();
            if (!missing.isEmpty()) {
                // Checked before chronicle is touched, since chronicle logs errors of its own when it fails.
                LOG.info("Samsa stores logs with FileChannel.map because chronicle-bytes needs JVM flags this JVM"
                        + " lacks; add these to use chronicle: {}", missing);
                return JDK;
            }
            Path file = null;
            try {
                file = Files.createTempFile("samsa-chronicle-probe", ".bin");
                try (MappedStore store = CHRONICLE.open(file)) {
                    store.write(0, ByteBuffer.wrap(new byte[] {42}));
                    if (store.read(0, 1).get() != 42) {
                        throw new IOException("read back a different byte from " + file);
                    }
                }
                return CHRONICLE;
            } catch (Exception | LinkageError | AssertionError e) {
                // Without --add-opens chronicle fails with an AssertionError, IllegalAccessError,
                // InaccessibleObjectException or ExceptionInInitializerError, depending on the
                // first internal it reaches.
                LOG.info("Samsa stores logs with FileChannel.map because chronicle-bytes cannot run in this JVM ({});"
                        + " add these JVM flags to use chronicle: {}", e.toString(), chronicleJvmFlags());
                return JDK;
            } finally {
                deleteQuietly(file);
            }
        }

        /** The flags of {@link #chronicleJvmFlags()} this JVM was not started with, space-separated. */
        private static String missingFlags() {
            Module self = MappedStores.class.getModule();
            StringBuilder missing = new StringBuilder();
            for (String flag : chronicleJvmFlags().split(" ")) {
                String target = flag.substring(flag.indexOf('=') + 1, flag.lastIndexOf('='));
                String moduleName = target.substring(0, target.indexOf('/'));
                String packageName = target.substring(target.indexOf('/') + 1);
                boolean granted = ModuleLayer.boot().findModule(moduleName)
                        .map(m -> flag.startsWith("--add-opens") ? m.isOpen(packageName, self) : m.isExported(packageName, self))
                        .orElse(false);
                if (!granted) {
                    missing.append(missing.length() == 0 ? "" : " ").append(flag);
                }
            }
            return missing.toString();
        }

        private static void deleteQuietly(Path file) {
            if (file == null) {
                return;
            }
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // A probe file in the temp directory is harmless.
            }
        }
    }

    private record Factory(String name, boolean chronicle) implements MappedStoreFactory {
        @Override
        public MappedStore open(Path file) throws IOException {
            return chronicle ? ChronicleMappedStore.open(file) : JdkMappedStore.open(file);
        }

        @Override
        public MappedStore create(Path file) {
            return chronicle ? ChronicleMappedStore.create(file) : JdkMappedStore.create(file);
        }

        @Override
        public void awaitReleased() {
            if (chronicle) {
                ChronicleMappedStore.awaitReleased();
            }
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
