package dev.samsa.handler;

import dev.samsa.cluster.ClusterMetadata;
import dev.samsa.cluster.Topic;
import dev.samsa.wire.KafkaRequest;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.ProduceRequestData;

/**
 * The topics a request names, for interceptors that pick requests by topic ({@code failNext(..., topic)}, the control
 * endpoint's {@code "topic"}): Produce, Fetch, ListOffsets, Metadata, OffsetCommit and DeleteRecords, by name or, where
 * the version sends ids, by the id's current name. Empty for every other API, and for a Metadata request of all topics.
 */
final class RequestTopics {

    private RequestTopics() {
    }

    static Set<String> of(KafkaRequest request, ClusterMetadata metadata) {
        Set<String> topics = new TreeSet<>();
        switch (request.apiKey()) {
            case PRODUCE -> ((ProduceRequestData) request.data()).topicData()
                    .forEach(t -> add(topics, t.name(), t.topicId(), metadata));
            case FETCH -> ((FetchRequestData) request.data()).topics()
                    .forEach(t -> add(topics, t.topic(), t.topicId(), metadata));
            case LIST_OFFSETS -> ((ListOffsetsRequestData) request.data()).topics().forEach(t -> topics.add(t.name()));
            case METADATA -> {
                MetadataRequestData data = request.data();
                if (data.topics() != null) {
                    data.topics().forEach(t -> add(topics, t.name(), t.topicId(), metadata));
                }
            }
            case OFFSET_COMMIT -> ((OffsetCommitRequestData) request.data()).topics()
                    .forEach(t -> add(topics, t.name(), t.topicId(), metadata));
            case DELETE_RECORDS -> ((DeleteRecordsRequestData) request.data()).topics().forEach(t -> topics.add(t.name()));
            default -> { }
        }
        return topics;
    }

    private static void add(Set<String> topics, String name, Uuid id, ClusterMetadata metadata) {
        if (name != null && !name.isEmpty()) {
            topics.add(name);
        } else if (id != null && !Uuid.ZERO_UUID.equals(id)) {
            Topic topic = metadata.topic(id);
            if (topic != null) {
                topics.add(topic.name());
            }
        }
    }
}
