package dev.samsa.differential;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The one list of differences between Samsa and Kafka that the suite accepts, each with its reason:
 * {@code differential/allowed-differences.txt} on the test classpath. A line is {@code scenario key reason...}; a key
 * ending in {@code *} covers every key it prefixes. Anything else that differs fails its scenario.
 */
final class AllowedDifferences {

    static final String RESOURCE = "differential/allowed-differences.txt";

    record Entry(String scenario, String key, String reason) {
        boolean covers(String scenarioName, String observedKey) {
            if (!scenario.equals(scenarioName)) {
                return false;
            }
            return key.endsWith("*") ? observedKey.startsWith(key.substring(0, key.length() - 1)) : key.equals(observedKey);
        }
    }

    private final List<Entry> entries;

    private AllowedDifferences(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    static AllowedDifferences load() {
        List<Entry> entries = new ArrayList<>();
        try (InputStream in = AllowedDifferences.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("No " + RESOURCE + " on the test classpath");
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            int number = 0;
            while ((line = reader.readLine()) != null) {
                number++;
                String trimmed = line.strip();
                if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                    continue;
                }
                String[] parts = trimmed.split("\\s+", 3);
                if (parts.length < 3) {
                    throw new IllegalStateException(RESOURCE + ":" + number + " needs a scenario, a key and a reason: " + line);
                }
                entries.add(new Entry(parts[0], parts[1], parts[2]));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new AllowedDifferences(entries);
    }

    Optional<Entry> find(String scenario, String key) {
        return entries.stream().filter(e -> e.covers(scenario, key)).findFirst();
    }

    List<Entry> entries() {
        return entries;
    }
}
