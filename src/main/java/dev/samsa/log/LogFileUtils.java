package dev.samsa.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** File and directory names of a partition log, as Kafka names them, and removing a directory of them. */
public final class LogFileUtils {

    public static final String LOG_FILE_SUFFIX = ".log";
    public static final String INDEX_FILE_SUFFIX = ".index";
    public static final String TIME_INDEX_FILE_SUFFIX = ".timeindex";
    public static final String TXN_INDEX_FILE_SUFFIX = ".txnindex";
    /** A segment the cleaner is still writing; deleted on open. */
    public static final String CLEANED_FILE_SUFFIX = ".cleaned";
    /** A cleaned segment written in full, waiting to replace the segments it was cleaned from; completed on open. */
    public static final String SWAP_FILE_SUFFIX = ".swap";
    /** Holds the log start offset raised by DeleteRecords, one file per partition directory. */
    public static final String LOG_START_OFFSET_CHECKPOINT = "log-start-offset-checkpoint";

    private LogFileUtils() {
    }

    /** {@code "<topic>-<partition>"}, the directory of one partition replica. */
    public static String partitionDirName(String topic, int partition) {
        return topic + "-" + partition;
    }

    /** The base offset zero-padded to 20 digits, so that file names sort as offsets do. */
    public static String filenamePrefixFromOffset(long offset) {
        return String.format("%020d", offset);
    }

    public static Path logFile(Path dir, long baseOffset) {
        return dir.resolve(filenamePrefixFromOffset(baseOffset) + LOG_FILE_SUFFIX);
    }

    public static Path offsetIndexFile(Path dir, long baseOffset) {
        return dir.resolve(filenamePrefixFromOffset(baseOffset) + INDEX_FILE_SUFFIX);
    }

    public static Path timeIndexFile(Path dir, long baseOffset) {
        return dir.resolve(filenamePrefixFromOffset(baseOffset) + TIME_INDEX_FILE_SUFFIX);
    }

    public static Path transactionIndexFile(Path dir, long baseOffset) {
        return dir.resolve(filenamePrefixFromOffset(baseOffset) + TXN_INDEX_FILE_SUFFIX);
    }

    public static Path cleanedFile(Path dir, long baseOffset) {
        return dir.resolve(filenamePrefixFromOffset(baseOffset) + LOG_FILE_SUFFIX + CLEANED_FILE_SUFFIX);
    }

    public static Path swapFile(Path dir, long baseOffset) {
        return dir.resolve(filenamePrefixFromOffset(baseOffset) + LOG_FILE_SUFFIX + SWAP_FILE_SUFFIX);
    }

    public static boolean isLogFile(Path file) {
        String name = file.getFileName().toString();
        return name.endsWith(LOG_FILE_SUFFIX) && name.length() == 20 + LOG_FILE_SUFFIX.length()
                && name.chars().limit(20).allMatch(Character::isDigit);
    }

    /** The base offset a segment file is named after, such as 42 for {@code 00000000000000000042.log}. */
    public static long offsetFromFileName(Path file) {
        String name = file.getFileName().toString();
        return Long.parseLong(name.substring(0, name.indexOf('.')));
    }

    /**
     * Deletes {@code dir} and everything under it, deepest first, as Kafka's {@code Utils.delete}; nothing to do if it
     * does not exist. Every path is tried; the first failure is thrown with the others suppressed.
     */
    public static void deleteRecursively(Path dir) throws IOException {
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(dir)) {
            paths = walk.sorted(Comparator.reverseOrder()).toList();
        } catch (NoSuchFileException e) {
            return;
        }
        IOException failure = null;
        for (Path path : paths) {
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
