package dev.samsa.event;

/**
 * An action armed on the timeline ({@link ClusterTimeline#on}, {@link ClusterTimeline#onEvery}): it runs on the
 * cluster loop right after the loop's current step records a matching event, before the loop takes any other request,
 * timer or admin call.
 */
public interface Trigger {

    /** Disarms the trigger: no later event fires it. An action already due still runs. */
    void cancel();

    /** How many times a matching event fired it so far. */
    int fired();
}
