package dev.samsa.log;

/**
 * The answer to OffsetsForLeaderEpoch: the largest known epoch at most the one asked for, and the
 * offset where it ended (the start of the next epoch, or the log end offset for the latest).
 */
public record EpochEndOffset(int leaderEpoch, long endOffset) {

    public static final int UNDEFINED_EPOCH = -1;
    public static final long UNDEFINED_EPOCH_OFFSET = -1L;
    public static final EpochEndOffset UNDEFINED = new EpochEndOffset(UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET);
}
