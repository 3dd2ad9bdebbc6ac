package dev.samsa.log.store;

import java.io.IOException;
import java.nio.file.Path;

/** Opens {@link MappedStore}s of one implementation; see {@link MappedStores} to pick one. */
public interface MappedStoreFactory {

    /** Opens {@code file}, creating it if absent; existing bytes are kept. */
    MappedStore open(Path file) throws IOException;

    /** Short name for logs and test names, such as {@code "chronicle"} or {@code "jdk"}. */
    String name();
}
