package dev.samsa.event;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A finding of the history check for the HTML timeline ({@link ClusterTimeline#writeHtml}): a mark of {@code kind}
 * ("lost", "duplicate", "out-of-order", "delivered-twice", "skipped") on {@code lane} (a partition, "orders-0", or a
 * group, "group billing") and a row of the page's findings table.
 *
 * <p>{@code at} and {@code cause} are positions among all the events the timeline ever recorded (the kept events'
 * index plus {@link ClusterTimeline.Snapshot#dropped()}), -1 when there is none: {@code at} is the event it happened at
 * (for a loss, the election or truncation that lost the records), where the mark goes; {@code cause} the fault that
 * brought it about (for a loss, the latest crash, power loss or isolation of the broker that acknowledged the records),
 * which the table links to. Without {@code at} the mark goes to the first event at or after {@code timeMs}.
 *
 * @param records how many records it concerns, counted on its mark ("10 lost")
 * @param columns the table's cells by heading, in order ("offsets", "producer id", ...)
 * @param text the finding as one line
 */
public record Finding(String kind, String lane, long timeMs, long at, long cause, long records,
        Map<String, String> columns, String text) {

    public Finding {
        columns = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(columns));
    }

    /** A finding placed by time alone, with no event to stand at and no known cause. */
    public Finding(String kind, String lane, long timeMs, String text) {
        this(kind, lane, timeMs, -1, -1, 1, Map.of(), text);
    }
}
