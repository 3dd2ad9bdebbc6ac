/**
 * The cluster's event timeline: one record per kind of event ({@link dev.samsa.event.LeaderChanged},
 * {@link dev.samsa.event.IsrShrunk}, {@link dev.samsa.event.Truncated}, ...), each a {@link dev.samsa.event.ClusterEvent}
 * with fields to read; {@link dev.samsa.event.Timeline}, which the domain records into on the cluster loop and which
 * keeps the most recent events (the oldest dropped and counted beyond its capacity); the test's view of it,
 * {@link dev.samsa.event.ClusterTimeline} (read, await, print, arm a {@link dev.samsa.event.Trigger}); and
 * {@link dev.samsa.event.TimelineHtml}, the timeline as one self-contained HTML page.
 *
 * <p>Threading: events are recorded on the cluster loop only; reads take a snapshot and are safe from any thread. A
 * trigger's action is handed to the loop, to run right after the step that recorded its event.
 *
 * <p>What it may call: nothing internal. This package is part of the public API.
 */
package dev.samsa.event;
