package dev.samsa.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.OptionalLong;

/**
 * The log start offset raised by DeleteRecords, in the partition directory, so that it survives
 * a restart. Kafka keeps one such file per log directory; Samsa keeps one per partition so that
 * a partition directory is self-contained.
 *
 * <p>Format, in the style of Kafka's checkpoint files: a version line {@code 0}, then the offset
 * in decimal, each followed by a newline. Written to a temporary file, forced, then moved over the
 * old one, so a crash leaves either the old or the new offset.
 */
final class LogStartOffsetCheckpoint {

    private static final String VERSION = "0";

    private final Path file;

    LogStartOffsetCheckpoint(Path dir) {
        this.file = dir.resolve(LogFileUtils.LOG_START_OFFSET_CHECKPOINT);
    }

    void write(long logStartOffset) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.createDirectories(file.getParent());
            Files.write(tmp, (VERSION + "\n" + logStartOffset + "\n").getBytes(StandardCharsets.UTF_8));
            try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                channel.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new IOException("Cannot write log start offset checkpoint " + file + ": " + e.getMessage(), e);
        }
    }

    /** The saved offset, or empty if there is no checkpoint. */
    OptionalLong read() throws IOException {
        if (!Files.exists(file)) {
            return OptionalLong.empty();
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        try {
            if (lines.size() < 2 || !VERSION.equals(lines.get(0).trim())) {
                throw new NumberFormatException("expected version " + VERSION + " and one offset, found " + lines);
            }
            return OptionalLong.of(Long.parseLong(lines.get(1).trim()));
        } catch (NumberFormatException e) {
            throw new IOException("Malformed log start offset checkpoint " + file + ": " + e.getMessage(), e);
        }
    }
}
