package dev.samsa.network;

import java.util.function.LongSupplier;

/**
 * The cluster loop's wall clock as the network reads it: monotonic nanoseconds for session lifetimes, and the epoch
 * milliseconds the same clock stands at, for credentials that carry an epoch expiry (an OAUTHBEARER token's exp).
 */
public record WallClock(LongSupplier nanos, LongSupplier epochMillis) {
}
