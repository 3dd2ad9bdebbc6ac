/**
 * What the KIP-848 protocol's groups share: the server-side assignors ({@link dev.samsa.group.modern.UniformAssignor},
 * {@link dev.samsa.group.modern.RangeAssignor}), assignments by topic id, and where a member stands in reconciling
 * towards its group's target assignment ({@link dev.samsa.group.modern.MemberState}). The consumer protocol itself is
 * in {@code consumer/}.
 *
 * <p>Threading: on the cluster loop, like the rest of {@code group/}.
 */
package dev.samsa.group.modern;
