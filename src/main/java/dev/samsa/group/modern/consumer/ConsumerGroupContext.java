package dev.samsa.group.modern.consumer;

import dev.samsa.group.modern.TopicMetadata;
import dev.samsa.time.Scheduler;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.protocol.Errors;

/**
 * What the consumer-group protocol needs from its coordinator: the loop's timers and times, the loaded groups, the
 * broker's configs, the topics, and the group record's write. {@code GroupCoordinatorContext} implements it; a unit
 * test implements it over a {@code MockScheduler} and maps.
 */
public interface ConsumerGroupContext {

    Scheduler scheduler();

    /** The loaded consumer group {@code groupId}, or null: a timer may outlive its group's unload. */
    ConsumerGroup consumerGroupOrNull(String groupId);

    /** Read on each use, so a config changed at runtime applies to the next heartbeat. */
    ConsumerGroupConfig consumerConfig();

    /** The topics a member may subscribe to, by name; internal topics are not among them. */
    Map<String, TopicMetadata> topics();

    /** Writes the group's record and calls {@code done} once it is replicated (NONE or the coordinator error). */
    void persistConsumerGroup(ConsumerGroup group, Consumer<Errors> done);
}
