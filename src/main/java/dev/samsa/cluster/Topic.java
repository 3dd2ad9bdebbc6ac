package dev.samsa.cluster;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.apache.kafka.common.Uuid;

/** A topic: its id, its partitions and its config overrides. Owned by the cluster loop. */
public final class Topic {

    private final String name;
    private final Uuid id;
    private final List<Partition> partitions = new ArrayList<>();
    private final Map<String, String> configs;
    /** By broker id; dropped whenever the overrides or a broker's configs change. */
    private final Map<Integer, EffectiveTopicConfig> effectiveConfigs = new HashMap<>();

    Topic(String name, Uuid id, Map<String, String> configs) {
        this.name = name;
        this.id = id;
        this.configs = new LinkedHashMap<>(configs);
    }

    public String name() {
        return name;
    }

    public Uuid id() {
        return id;
    }

    public List<Partition> partitions() {
        return Collections.unmodifiableList(partitions);
    }

    public Partition partition(int index) {
        return index >= 0 && index < partitions.size() ? partitions.get(index) : null;
    }

    void addPartition(Partition partition) {
        partitions.add(partition);
    }

    public int replicationFactor() {
        return partitions.isEmpty() ? 0 : partitions.get(0).replicas().size();
    }

    /** The overrides set on this topic, not the effective values. */
    public Map<String, String> configs() {
        return Collections.unmodifiableMap(configs);
    }

    void setConfigs(Map<String, String> overrides) {
        configs.clear();
        configs.putAll(overrides);
        effectiveConfigs.clear();
    }

    EffectiveTopicConfig effectiveConfig(int brokerId, IntFunction<EffectiveTopicConfig> compute) {
        return effectiveConfigs.computeIfAbsent(brokerId, compute::apply);
    }

    @Override
    public String toString() {
        return name + "(" + id + ", " + partitions.size() + " partitions)";
    }
}
