package dev.samsa.cluster;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import org.apache.kafka.common.errors.PolicyViolationException;

/**
 * Partitions cost file descriptors, and every broker of every cluster in this JVM shares the process's limit: each
 * replica keeps {@value #FILES_PER_REPLICA} files open (log, offset index, time index of its active segment). A create
 * that would run the process out is refused up front with the numbers, instead of failing half-way with "Too many
 * open files" and taking the listeners' {@code accept()} down with it. A tenth of the limit stays spare for
 * connections, jars and the code under test. Where the JVM cannot tell (not a Unix), nothing is checked.
 */
final class FileDescriptorBudget {

    static final int FILES_PER_REPLICA = 3;

    private FileDescriptorBudget() {
    }

    /** @throws PolicyViolationException when {@code newReplicas} more replicas would not fit the process's limit */
    static void check(long newReplicas) {
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            check(newReplicas, unix.getOpenFileDescriptorCount(), unix.getMaxFileDescriptorCount());
        }
    }

    static void check(long newReplicas, long open, long max) {
        long needed = newReplicas * FILES_PER_REPLICA;
        long usable = max - max / 10;
        if (open + needed > usable) {
            throw new PolicyViolationException("Creating " + newReplicas + " partition replicas needs about " + needed
                    + " more open files (" + FILES_PER_REPLICA + " per replica: log, offset index, time index), but this "
                    + "process has " + open + " open of its limit of " + max + " (ulimit -n) and Samsa keeps a tenth "
                    + "spare. Create fewer partitions or replicas, or raise the limit.");
        }
    }
}
