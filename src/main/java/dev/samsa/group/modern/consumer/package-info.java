/**
 * KIP-848's consumer protocol ({@code group.protocol=consumer}): {@link dev.samsa.group.modern.consumer.ConsumerGroups}
 * answers ConsumerGroupHeartbeat (joins, subscriptions, regex subscriptions, static members, session timeouts),
 * {@link dev.samsa.group.modern.consumer.ConsumerGroup} holds the group epoch and target assignment, and
 * {@link dev.samsa.group.modern.consumer.CurrentAssignmentBuilder} moves each member towards it; classic members of
 * such a group are served by {@link dev.samsa.group.modern.consumer.ClassicProtocolMembers}.
 *
 * <p>Threading: on the cluster loop, like the rest of {@code group/}.
 */
package dev.samsa.group.modern.consumer;
