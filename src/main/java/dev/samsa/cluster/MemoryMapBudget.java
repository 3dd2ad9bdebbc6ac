package dev.samsa.cluster;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import org.apache.kafka.common.errors.PolicyViolationException;

/**
 * Partitions cost memory mappings, and every broker of every cluster in this JVM shares the process's limit
 * ({@code vm.max_map_count}, 65,530 by default on Linux): a replica that holds data maps {@value #MAPS_PER_REPLICA}
 * chunk of its active segment's log. It holds no file descriptor (each chunk is mapped through a channel closed at
 * once) and its indexes live in memory, so mappings, not {@code ulimit -n}, are what runs out first. A create that
 * would run the process out is refused up front with the numbers, instead of failing half-way with "Map failed" on
 * some later append. A tenth of the limit stays spare for the JVM, jars, larger segments and the code under test.
 * Where the limit cannot be read (not Linux), nothing is checked.
 */
final class MemoryMapBudget {

    static final int MAPS_PER_REPLICA = 1;
    private static final Path MAX_MAP_COUNT = Path.of("/proc/sys/vm/max_map_count");
    private static final Path MAPS = Path.of("/proc/self/maps");

    private MemoryMapBudget() {
    }

    /** @throws PolicyViolationException when {@code newReplicas} more replicas would not fit the process's limit */
    static void check(long newReplicas) {
        long max;
        long mapped;
        try {
            max = maxMapCount();
            try (Stream<String> lines = Files.lines(MAPS)) {
                mapped = lines.count();
            }
        } catch (IOException | RuntimeException e) {
            return;
        }
        check(newReplicas, mapped, max);
    }

    /** The process's limit; read by line, since some kernels report a wrong size for files under /proc. */
    static long maxMapCount() throws IOException {
        try (BufferedReader reader = Files.newBufferedReader(MAX_MAP_COUNT)) {
            return Long.parseLong(reader.readLine().trim());
        }
    }

    static void check(long newReplicas, long mapped, long max) {
        long needed = newReplicas * MAPS_PER_REPLICA;
        long usable = max - max / 10;
        if (mapped + needed > usable) {
            throw new PolicyViolationException("Creating " + newReplicas + " partition replicas needs about " + needed
                    + " more memory mappings (" + MAPS_PER_REPLICA + " per replica: its log), but this process has "
                    + mapped + " of its limit of " + max + " (vm.max_map_count) and Samsa keeps a tenth spare. Create "
                    + "fewer partitions or replicas, or raise the limit (sysctl vm.max_map_count).");
        }
    }
}
