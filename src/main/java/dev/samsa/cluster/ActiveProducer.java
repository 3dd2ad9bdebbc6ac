package dev.samsa.cluster;

/**
 * One producer a replica knows, as DescribeProducers reports it: epoch, the sequence of its last record (-1 if none
 * in this epoch), the timestamp of its last batch or marker, the coordinator epoch of its last marker (-1 if none)
 * and the first offset of its ongoing transaction (-1 if none).
 */
public record ActiveProducer(long producerId, short producerEpoch, int lastSequence, long lastTimestamp,
                             int coordinatorEpoch, long currentTxnStartOffset) {
}
