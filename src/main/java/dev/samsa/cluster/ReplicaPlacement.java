package dev.samsa.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Kafka's rack-unaware replica assignment: leaders round-robin from a random start, followers shifted. */
final class ReplicaPlacement {

    private ReplicaPlacement() {
    }

    /**
     * @param brokers live broker ids, sorted
     * @param firstPartition index of the first new partition (for CreatePartitions)
     */
    static List<List<Integer>> assign(List<Integer> brokers, int partitions, int replicationFactor, int firstPartition,
                                      Random random) {
        int n = brokers.size();
        int startIndex = random.nextInt(n);
        int nextReplicaShift = random.nextInt(n);
        List<List<Integer>> result = new ArrayList<>();
        int currentPartition = firstPartition;
        for (int i = 0; i < partitions; i++) {
            if (currentPartition > 0 && currentPartition % n == 0) {
                nextReplicaShift++;
            }
            int firstReplicaIndex = (currentPartition + startIndex) % n;
            List<Integer> replicas = new ArrayList<>();
            replicas.add(brokers.get(firstReplicaIndex));
            for (int j = 0; j < replicationFactor - 1; j++) {
                int shift = 1 + (nextReplicaShift + j) % (n - 1);
                replicas.add(brokers.get((firstReplicaIndex + shift) % n));
            }
            result.add(replicas);
            currentPartition++;
        }
        return result;
    }
}
