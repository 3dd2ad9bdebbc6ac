package dev.samsa.group.classic;

import dev.samsa.time.Scheduler;
import org.apache.kafka.common.protocol.Errors;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the classic flows need from the coordinator: timers, the groups by id, configs, seeded member ids, and a hook
 * that persists the group after a generation change and tells, once replicated, whether that worked.
 */
public record ClassicGroupContext(Scheduler scheduler, Function<String, ClassicGroup> groups, Supplier<ClassicGroupConfig> config,
                                  Supplier<String> uuid, BiConsumer<ClassicGroup, Consumer<Errors>> persistGroup) {

    /** Persists an Empty or Stable group without waiting, as Kafka does after a join ends or a static member returns. */
    public void persist(ClassicGroup group) {
        if (group.isInState(ClassicGroupState.EMPTY) || group.isInState(ClassicGroupState.STABLE)) {
            persistGroup.accept(group, error -> { });
        }
    }

    public long nowMs() {
        return scheduler.nowMs();
    }

    /** The loop's wall time, for the liveness rule; never a static read. */
    public long wallMs() {
        return scheduler.wallMs();
    }

    public boolean manualClock() {
        return scheduler.clock().isManual();
    }

    public static String heartbeatKey(String groupId, String memberId) {
        return "heartbeat-" + groupId + "-" + memberId;
    }

    public static String joinKey(String groupId) {
        return "join-" + groupId;
    }

    public static String syncKey(String groupId) {
        return "sync-" + groupId;
    }
}
