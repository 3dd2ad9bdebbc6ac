package dev.samsa.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogFileUtilsTest {

    @TempDir
    Path tmp;

    @Test
    void shouldDeleteADirectoryWithEverythingUnderIt() throws IOException {
        Path dir = tmp.resolve("broker-1");
        Path partition = Files.createDirectories(dir.resolve("orders-0"));
        Files.write(LogFileUtils.logFile(partition, 0), new byte[] {1, 2, 3});
        Files.createDirectories(dir.resolve("empty"));
        Files.writeString(tmp.resolve("sibling"), "stays");

        LogFileUtils.deleteRecursively(dir);

        assertThat(dir).doesNotExist();
        assertThat(tmp.resolve("sibling")).hasContent("stays");
    }

    @Test
    void shouldDoNothingForADirectoryThatIsNotThere() throws IOException {
        LogFileUtils.deleteRecursively(tmp.resolve("gone"));

        assertThat(tmp).isEmptyDirectory();
    }

    @Test
    void shouldNameTheLogFilesByZeroPaddedBaseOffset() {
        Path file = LogFileUtils.logFile(tmp, 42);

        assertThat(file.getFileName()).hasToString("00000000000000000042.log");
        assertThat(LogFileUtils.isLogFile(file)).isTrue();
        assertThat(LogFileUtils.offsetFromFileName(file)).isEqualTo(42L);
        assertThat(LogFileUtils.isLogFile(LogFileUtils.offsetIndexFile(tmp, 42))).isFalse();
    }
}
