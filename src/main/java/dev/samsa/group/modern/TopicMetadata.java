package dev.samsa.group.modern;

import org.apache.kafka.common.Uuid;

/** A topic as the assignors see it: its id, name and partition count. */
public record TopicMetadata(Uuid id, String name, int partitions) {
}
