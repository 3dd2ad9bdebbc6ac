package dev.samsa.handler;

import dev.samsa.cluster.ClusterMetadata;
import dev.samsa.cluster.Partition;
import dev.samsa.cluster.Topic;
import dev.samsa.wire.KafkaRequest;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeLogDirsRequestData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsPartition;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeLogDirs v1-5 ({@code Admin.describeLogDirs}, {@code kafka-log-dirs}), as Kafka's
 * {@code ReplicaManager.describeLogDirs}: this broker's one log directory ({@code <dir>/broker-<id>}) with the replicas
 * it hosts of the asked partitions (all when the topics are null), each with the bytes of its segments, its offset lag
 * (the high watermark less the log end offset, at least 0) and isFuture false (Samsa has no AlterReplicaLogDirs); from
 * v4 the total and usable bytes of the volume; v5's isCordoned is false (Samsa never cordons a directory). A
 * principal without DESCRIBE on the cluster gets CLUSTER_AUTHORIZATION_FAILED and no directories.
 */
final class DescribeLogDirsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_LOG_DIRS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        DescribeLogDirsRequestData data = request.data();
        DescribeLogDirsResponseData response = new DescribeLogDirsResponseData();
        if (!broker.authorized(request, AclOperation.DESCRIBE, ResourceType.CLUSTER, Acls.CLUSTER_NAME)) {
            request.respond(response.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code()));
            return;
        }
        Set<TopicPartition> asked = null;
        if (data.topics() != null) {
            asked = new HashSet<>();
            for (DescribeLogDirsRequestData.DescribableLogDirTopic t : data.topics()) {
                for (int p : t.partitions()) {
                    asked.add(new TopicPartition(t.topic(), p));
                }
            }
        }
        ClusterMetadata metadata = broker.cluster().metadata();
        int brokerId = broker.brokerId();
        Path dir = metadata.brokerLogDir(brokerId);
        DescribeLogDirsResult result = new DescribeLogDirsResult().setLogDir(dir.toString()).setErrorCode(Errors.NONE.code());
        for (Topic topic : metadata.topics()) {
            DescribeLogDirsTopic hosted = new DescribeLogDirsTopic().setName(topic.name());
            for (Partition p : topic.partitions()) {
                if (p.hostsLog(brokerId) && (asked == null || asked.contains(p.topicPartition()))) {
                    hosted.partitions().add(new DescribeLogDirsPartition().setPartitionIndex(p.index())
                            .setPartitionSize(p.logSizeInBytes(brokerId)).setOffsetLag(p.offsetLag(brokerId)).setIsFutureKey(false));
                }
            }
            if (!hosted.partitions().isEmpty()) {
                result.topics().add(hosted);
            }
        }
        try {
            FileStore store = Files.getFileStore(existingAncestor(dir));
            result.setTotalBytes(largeFileSystem(store.getTotalSpace())).setUsableBytes(largeFileSystem(store.getUsableSpace()));
        } catch (IOException e) {
            result.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code());
        }
        response.results().add(result);
        request.respond(response);
    }

    /** A broker's directory exists once one of its replicas has files: until then the volume is its parent's. */
    private static Path existingAncestor(Path dir) {
        Path p = dir;
        while (p != null && !Files.exists(p)) {
            p = p.getParent();
        }
        return p == null ? dir : p;
    }

    /** As Kafka (JDK-8162520): a volume too large for a long reports a negative size. */
    private static long largeFileSystem(long bytes) {
        return bytes < 0 ? Long.MAX_VALUE : bytes;
    }
}
