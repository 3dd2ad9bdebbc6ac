package dev.samsa.log.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The pom's {@code chronicle.jvm.flags} is the one list of chronicle's JVM flags; the code reads it through a filtered
 * resource, and the copies a reader sees (docs/compatibility.md, "JVM flags") or {@code java -jar} honours (the manifest) must say the same.
 */
class ChronicleJvmFlagsTest {

    private static final Pattern FLAG = Pattern.compile("--add-(opens|exports)=([\\w.]+/[\\w.]+)=ALL-UNNAMED");

    private static List<String> flags() {
        return Arrays.asList(MappedStores.chronicleJvmFlags().split(" "));
    }

    private static String between(String text, String start, String end) {
        Matcher m = Pattern.compile(Pattern.quote(start) + "(.*?)" + Pattern.quote(end), Pattern.DOTALL).matcher(text);
        assertThat(m.find()).as("%s...%s", start, end).isTrue();
        return m.group(1);
    }

    /** The module/package targets of the flags of one kind, as a manifest lists them. */
    private static List<String> targets(String kind) {
        return flags().stream().map(FLAG::matcher).filter(Matcher::matches).filter(m -> m.group(1).equals(kind))
                .map(m -> m.group(2)).toList();
    }

    @Test
    void shouldReadThePomsListOfWellFormedFlags() throws IOException {
        String pom = Files.readString(Path.of("pom.xml"));

        assertThat(flags()).hasSizeGreaterThan(1).allMatch(flag -> FLAG.matcher(flag).matches());
        assertThat(flags()).containsExactly(between(pom, "<chronicle.jvm.flags>", "</chronicle.jvm.flags>").split(" "));
    }

    @Test
    void shouldBeTheListTheCompatibilityGuideGives() throws IOException {
        String guide = Files.readString(Path.of("docs/compatibility.md"));
        int section = guide.indexOf("\n## JVM flags\n");
        assertThat(section).as("docs/compatibility.md's section \"## JVM flags\"").isNotNegative();
        String block = between(guide.substring(section), "```\n", "```");

        assertThat(block.trim().split("\\s+")).containsExactlyElementsOf(flags());
    }

    @Test
    void shouldBeTheListTheRunnableJarsManifestOpens() throws IOException {
        String pom = Files.readString(Path.of("pom.xml"));

        assertThat(between(pom, "<Add-Opens>", "</Add-Opens>").split(" ")).containsExactlyElementsOf(targets("opens"));
        assertThat(between(pom, "<Add-Exports>", "</Add-Exports>").split(" ")).containsExactlyElementsOf(targets("exports"));
        assertThat(targets("opens").size() + targets("exports").size()).isEqualTo(flags().size());
    }
}
