package dev.samsa.log.store;

import java.io.IOException;
import java.nio.file.Path;

/** Opens {@link MappedStore}s of one implementation; see {@link MappedStores} to pick one. */
public interface MappedStoreFactory {

    /** Opens {@code file}, creating it if absent; existing bytes are kept. */
    MappedStore open(Path file) throws IOException;

    /**
     * A store for {@code file}, which does not exist yet: the first write creates it, in the same open that maps its
     * first chunk, so a new file costs one file-system operation fewer than {@link #open}.
     */
    MappedStore create(Path file);

    /**
     * Returns once every store of this factory that has been closed has let go of its file and mappings (chronicle
     * lets go on a background thread of its own).
     */
    default void awaitReleased() {
    }

    /** Short name for logs and test names, such as {@code "chronicle"} or {@code "jdk"}. */
    String name();
}
