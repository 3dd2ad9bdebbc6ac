package dev.samsa.log;

/**
 * A record found by timestamp, as ListOffsets returns it: its timestamp, its offset and the
 * leader epoch of its batch ({@code -1} if unknown).
 */
public record TimestampAndOffset(long timestamp, long offset, int leaderEpoch) {

    /** What an empty log answers for the largest timestamp, as Kafka does. */
    public static final TimestampAndOffset NONE = new TimestampAndOffset(-1L, -1L, -1);
}
