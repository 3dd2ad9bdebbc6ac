/**
 * The public API, and the only package a test needs besides {@code dev.samsa.time.ClusterClock}, the events of
 * {@code dev.samsa.event} and the JUnit extension's {@code dev.samsa.junit}: {@link dev.samsa.KafkaCluster} and its
 * builder, its {@link dev.samsa.Broker}s, the {@link dev.samsa.Faults} and {@link dev.samsa.FaultSchedule}s a test
 * injects, the read-only views of partitions, groups and transactions ({@link dev.samsa.PartitionView},
 * {@link dev.samsa.ConsumerGroup}, {@link dev.samsa.TransactionView}), the {@link dev.samsa.History} check, event
 * predicates ({@link dev.samsa.When}) and {@link dev.samsa.Security}.
 *
 * <p>No kafka-clients type appears here: the published jar relocates the broker's kafka-clients, and a user's own of
 * any version 3.0 to 4.x talks to the cluster over the wire. Calls from a test thread are handed to the cluster loop
 * and wait for it; nothing here changes cluster state off the loop.
 */
package dev.samsa;
