/**
 * Time and the one thread: {@link dev.samsa.time.ClusterClock}, the only source of time for broker logic (the system
 * clock, or a manual one a test advances), {@link dev.samsa.time.ClusterLoop}, the one thread that changes cluster
 * state, and its {@link dev.samsa.time.Scheduler}: keyed timers on the cluster clock (which on a manual clock fire,
 * in order, inside {@code advance}) and on wall time, with the loop's wall time handed to the domain as a value.
 *
 * <p>Only this package reads the wall clock or sleeps; ArchitectureTest holds the rest of the broker to that.
 *
 * <p>What it may call: nothing internal. {@code ClusterClock} is part of the public API.
 */
package dev.samsa.time;
