package dev.samsa.group.classic;

import dev.samsa.time.Scheduler;
import java.util.function.Consumer;
import org.apache.kafka.common.protocol.Errors;

/**
 * What the classic protocol needs from its coordinator: the loop's timers and times, the groups by id, the broker's
 * group configs, seeded member ids, and the group record's write. {@code GroupCoordinatorContext} implements it; a
 * unit test implements it over a {@code MockScheduler} and a map.
 */
public interface ClassicGroupContext {

    /** The cluster loop's timers, cluster time and wall time. */
    Scheduler scheduler();

    /** The loaded group {@code groupId}, or null: a timer may outlive its group's unload. */
    ClassicGroup groupOrNull(String groupId);

    /** Read on each use, so a config changed at runtime applies to the next request. */
    ClassicGroupConfig classicConfig();

    /** The random part of a new member id, from the cluster's seeded generator. */
    String newMemberUuid();

    /**
     * Writes the group's GroupMetadata record (its generation and assignment) and calls {@code done} once it is
     * replicated: NONE, or the error Kafka answers a failed coordinator write with.
     */
    void persistGroup(ClassicGroup group, Consumer<Errors> done);
}
