package dev.samsa.log;

/**
 * What a partition log knows of one producer, as DescribeProducers reports it: its epoch, the sequence of its last
 * record (-1 if none since its epoch began), the timestamp of its last batch or marker, the coordinator epoch of its
 * last marker (-1 if none) and the first offset of its ongoing transaction (-1 if none).
 */
public record ProducerState(long producerId, short producerEpoch, int lastSequence, long lastTimestamp,
                            int coordinatorEpoch, long currentTxnStartOffset) {
}
