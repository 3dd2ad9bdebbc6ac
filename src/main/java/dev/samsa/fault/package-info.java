/**
 * The faults in force and what each one does: {@link dev.samsa.fault.FaultState} (injected errors and added latency met
 * by every request, paused replication, brokers cut off from each other), the request interceptors in install order ({@link dev.samsa.fault.RequestInterceptors},
 * what one sees of a request, {@link dev.samsa.fault.InterceptedRequest}, and what it decides,
 * {@link dev.samsa.fault.Verdict}) and the transaction faults ({@link dev.samsa.fault.TxnFaults}: held markers, a
 * coordinator to crash or isolate once it has replicated a state).
 *
 * <p>Threading: owned by the cluster loop; the public {@code Faults} and {@code Broker} change it through the loop.
 *
 * <p>What it may call: nothing internal.
 */
package dev.samsa.fault;
