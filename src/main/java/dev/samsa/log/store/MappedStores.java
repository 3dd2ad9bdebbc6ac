package dev.samsa.log.store;

import java.io.IOException;
import java.nio.ByteBuffer;
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

    /** The flags that let chronicle run on Java 17+; the same list as the pom's {@code chronicle.jvm.flags}. */
    public static final String CHRONICLE_JVM_FLAGS = "--add-opens=java.base/java.lang=ALL-UNNAMED"
            + " --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED"
            + " --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED"
            + " --add-opens=java.base/java.util=ALL-UNNAMED --add-exports=java.base/jdk.internal.ref=ALL-UNNAMED"
            + " --add-exports=java.base/sun.nio.ch=ALL-UNNAMED --add-exports=java.base/jdk.internal.misc=ALL-UNNAMED"
            + " --add-exports=jdk.unsupported/sun.misc=ALL-UNNAMED";

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

    /** Chronicle-bytes, which fails on first use in a JVM without {@link #CHRONICLE_JVM_FLAGS}. */
    public static MappedStoreFactory chronicle() {
        return CHRONICLE;
    }

    public static MappedStoreFactory jdk() {
        return JDK;
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
                        + " add these JVM flags to use chronicle: {}", e.toString(), CHRONICLE_JVM_FLAGS);
                return JDK;
            } finally {
                deleteQuietly(file);
            }
        }

        /** The flags of {@link #CHRONICLE_JVM_FLAGS} this JVM was not started with, space-separated. */
        private static String missingFlags() {
            Module self = MappedStores.class.getModule();
            StringBuilder missing = new StringBuilder();
            for (String flag : CHRONICLE_JVM_FLAGS.split(" ")) {
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
