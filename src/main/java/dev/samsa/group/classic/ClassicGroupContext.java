package dev.samsa.group.classic;

import dev.samsa.time.Scheduler;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What the classic flows need from the coordinator: timers, the groups by id, configs, seeded member ids, and a hook
 * called after every generation change (persist the group, start or stop the Empty group's retention timer).
 */
public record ClassicGroupContext(Scheduler scheduler, Function<String, ClassicGroup> groups, Supplier<ClassicGroupConfig> config,
                                  Supplier<String> uuid, Consumer<ClassicGroup> onGenerationChange) {

    public long nowMs() {
        return scheduler.nowMs();
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
