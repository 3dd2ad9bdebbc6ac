package dev.samsa.event;

/**
 * A finding of the history check to flag on the HTML timeline ({@link ClusterTimeline#writeHtml}): a mark of
 * {@code kind} ("lost", "duplicate", "out-of-order") on {@code lane} (a partition, "orders-0") at cluster time
 * {@code timeMs}, the moment it happened, with {@code text} as its hover text. {@code at}, when not null, is the
 * timeline line of the event it happened at (for a loss, the election that lost it): the mark goes right there, not
 * merely among the events of the same millisecond.
 */
public record Finding(String kind, String lane, long timeMs, String at, String text) {
}
