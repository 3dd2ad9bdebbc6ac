package dev.samsa.cluster;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;

/**
 * The controller's metadata on disk, so that a cluster started again on the same directory finds its topics:
 *
 * <pre>
 * metadata/cluster.properties        cluster.id, producer.id.block.end
 * metadata/topics/&lt;topic id&gt;.properties name, id, partitions, partition.N.replicas=1,2,3,
 *                                    partition.N.target=2,3,4 (a reassignment in progress), config.&lt;key&gt;=value
 * </pre>
 *
 * Every file is replaced atomically (written beside it, then moved). Errors name the file. Topic files are named by
 * topic id, not name: a legal name of 249 characters plus ".properties.tmp" would pass the 255 bytes a file name
 * may have.
 *
 * <p>A store that is not {@code durable} serves a temporary data directory, deleted on close: nothing ever reads its
 * files again, so it keeps the cluster properties in memory and writes nothing, and a fresh cluster starts without
 * touching the disk.
 */
final class MetadataStore {

    /** One topic as stored: replicas per partition in partition order, reassignment targets by partition. */
    record StoredTopic(String name, Uuid id, Map<String, String> configs, List<List<Integer>> replicas,
                       Map<Integer, List<Integer>> targets) {
    }

    private final Path dir;
    /** Null for a durable store, which reads and writes {@code cluster.properties} instead. */
    private final Properties inMemory;

    MetadataStore(Path dataDirectory, boolean durable) {
        this.dir = dataDirectory.resolve("metadata");
        this.inMemory = durable ? null : new Properties();
    }

    String clusterProperty(String key) {
        return (inMemory != null ? inMemory : load(clusterFile())).getProperty(key);
    }

    void storeClusterProperty(String key, String value) {
        if (inMemory != null) {
            inMemory.setProperty(key, value);
            return;
        }
        Properties props = load(clusterFile());
        props.setProperty(key, value);
        store(clusterFile(), props);
    }

    List<StoredTopic> readTopics() {
        Path topics = dir.resolve("topics");
        if (inMemory != null || !Files.isDirectory(topics)) {
            return List.of();
        }
        Map<Uuid, StoredTopic> byId = new LinkedHashMap<>();
        List<Path> legacy = new ArrayList<>();
        try (Stream<Path> files = Files.list(topics)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".properties")).sorted(Comparator.naturalOrder()).toList()) {
                StoredTopic topic = read(file);
                if (file.equals(topicFile(topic.id()))) {
                    byId.put(topic.id(), topic);
                } else {
                    legacy.add(file);
                }
            }
            // Directories of earlier builds name topic files by topic name: each moves to its id's file once.
            for (Path file : legacy) {
                StoredTopic topic = read(file);
                if (!byId.containsKey(topic.id())) {
                    writeTopic(topic);
                    byId.put(topic.id(), topic);
                }
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read topics from " + topics, e);
        }
        return new ArrayList<>(byId.values());
    }

    private static StoredTopic read(Path file) {
        Properties props = load(file);
        Map<String, String> configs = new LinkedHashMap<>();
        props.stringPropertyNames().stream().filter(k -> k.startsWith("config."))
                .forEach(k -> configs.put(k.substring("config.".length()), props.getProperty(k)));
        List<List<Integer>> replicas = new ArrayList<>();
        Map<Integer, List<Integer>> targets = new LinkedHashMap<>();
        int count = Integer.parseInt(props.getProperty("partitions"));
        for (int p = 0; p < count; p++) {
            replicas.add(brokers(props.getProperty("partition." + p + ".replicas")));
            String target = props.getProperty("partition." + p + ".target");
            if (target != null) {
                targets.put(p, brokers(target));
            }
        }
        return new StoredTopic(props.getProperty("name"), Uuid.fromString(props.getProperty("id")), configs, replicas, targets);
    }

    void writeTopic(StoredTopic topic) {
        if (inMemory != null) {
            return;
        }
        Properties props = new Properties();
        props.setProperty("name", topic.name());
        props.setProperty("id", topic.id().toString());
        props.setProperty("partitions", Integer.toString(topic.replicas().size()));
        for (int p = 0; p < topic.replicas().size(); p++) {
            props.setProperty("partition." + p + ".replicas", join(topic.replicas().get(p)));
        }
        topic.targets().forEach((p, target) -> props.setProperty("partition." + p + ".target", join(target)));
        topic.configs().forEach((k, v) -> props.setProperty("config." + k, v));
        store(topicFile(topic.id()), props);
    }

    void deleteTopic(Uuid id) {
        if (inMemory != null) {
            return;
        }
        try {
            Files.deleteIfExists(topicFile(id));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete " + topicFile(id), e);
        }
    }

    private Path clusterFile() {
        return dir.resolve("cluster.properties");
    }

    private Path topicFile(Uuid id) {
        return dir.resolve("topics").resolve(id + ".properties");
    }

    private static List<Integer> brokers(String list) {
        return Arrays.stream(list.split(",")).map(String::trim).map(Integer::valueOf).toList();
    }

    private static String join(List<Integer> brokers) {
        return brokers.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    private static Properties load(Path file) {
        Properties props = new Properties();
        if (Files.exists(file)) {
            try (Reader r = Files.newBufferedReader(file)) {
                props.load(r);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read " + file, e);
            }
        }
        return props;
    }

    private static void store(Path file, Properties props) {
        try {
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
            try (Writer w = Files.newBufferedWriter(tmp)) {
                props.store(w, null);
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }
}
