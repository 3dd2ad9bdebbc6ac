package dev.samsa.event;

/**
 * A finding of the history check to flag on the HTML timeline ({@link ClusterTimeline#writeHtml}): a mark of
 * {@code kind} ("lost", "duplicate", "out-of-order") on {@code lane} (a partition, "orders-0") at cluster time
 * {@code timeMs}, the moment it happened (for a loss, the fault that lost it), with {@code text} as its hover text.
 */
public record Finding(String kind, String lane, long timeMs, String text) {
}
