package dev.samsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * ARCHITECTURE.md's "Where is X" table points at real code: every file a row links exists, and every method named
 * after a link (in backticks, up to the next link) is declared or called in that file. A rename or a move fails here, not in a reader's
 * search.
 */
class ArchitectureDocTest {

    private static final Path PROJECT = Path.of(System.getProperty("samsa.project.dir", "."));
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern NAME = Pattern.compile("`(\\w+)`");

    /** One link of a row and the names that follow it. */
    private record Pointer(String row, String path, List<String> names) {
    }

    private static List<Pointer> pointers() throws IOException {
        String doc = Files.readString(PROJECT.resolve("ARCHITECTURE.md"));
        int start = doc.indexOf("\n## Where is X\n");
        assertThat(start).as("ARCHITECTURE.md's section \"## Where is X\"").isNotNegative();
        int end = doc.indexOf("\n## ", start + 1);
        List<Pointer> pointers = new ArrayList<>();
        for (String line : doc.substring(start, end < 0 ? doc.length() : end).lines().toList()) {
            if (!line.startsWith("| ") || line.startsWith("| Where is") || line.startsWith("|---")) {
                continue;
            }
            String row = line.substring(2, line.indexOf(" |", 2));
            Matcher link = LINK.matcher(line);
            List<int[]> links = new ArrayList<>();
            while (link.find()) {
                links.add(new int[] {link.start(1), link.end(1), link.end()});
            }
            for (int i = 0; i < links.size(); i++) {
                int[] l = links.get(i);
                String after = line.substring(l[2], i + 1 < links.size() ? links.get(i + 1)[0] : line.length());
                after = after.contains("[") ? after.substring(0, after.indexOf('[')) : after;
                List<String> names = new ArrayList<>();
                Matcher name = NAME.matcher(after);
                while (name.find()) {
                    names.add(name.group(1));
                }
                pointers.add(new Pointer(row, line.substring(l[0], l[1]), names));
            }
        }
        return pointers;
    }

    /** A method (a name followed by its parameters) or a type of that name. */
    private static boolean declares(String source, String name) {
        return Pattern.compile("\\b" + name + "\\s*\\(|\\b(class|record|interface|enum)\\s+" + name + "\\b")
                .matcher(source).find();
    }

    @Test
    void everyRowOfTheWhereIsTablePointsAtAFileThatExists() throws IOException {
        List<Pointer> pointers = pointers();

        assertThat(pointers.stream().map(Pointer::row).distinct()).as("rows of the table").hasSizeGreaterThanOrEqualTo(12);
        assertThat(pointers).allSatisfy(p -> assertThat(PROJECT.resolve(p.path()))
                .as("%s: %s", p.row(), p.path()).isRegularFile());
    }

    @Test
    void everyMethodTheTableNamesIsInItsFile() throws IOException {
        for (Pointer p : pointers()) {
            String source = Files.readString(PROJECT.resolve(p.path()));
            assertThat(p.names()).allSatisfy(name -> assertThat(declares(source, name))
                    .as("%s: %s declares %s", p.row(), p.path(), name).isTrue());
        }
    }
}
