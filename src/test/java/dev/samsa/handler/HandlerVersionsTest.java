package dev.samsa.handler;

import static dev.samsa.handler.Handlers.serves;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.Api;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

/**
 * The versions a broker advertises are code: stated once in {@link Handlers#standard()}, named in each handler's
 * header comment, and pinned here, so that upgrading kafka-clients cannot change what clients are told without a
 * failing test.
 */
class HandlerVersionsTest {

    /** What ApiVersions answers, API by API. A change here is a change of what Samsa promises clients. */
    private static final Map<ApiKeys, String> ADVERTISED = pinned(
            ApiKeys.PRODUCE, "3-13",
            ApiKeys.FETCH, "4-18",
            ApiKeys.LIST_OFFSETS, "1-11",
            ApiKeys.METADATA, "0-13",
            ApiKeys.OFFSET_COMMIT, "2-10",
            ApiKeys.OFFSET_FETCH, "1-10",
            ApiKeys.TXN_OFFSET_COMMIT, "0-6",
            ApiKeys.FIND_COORDINATOR, "0-6",
            ApiKeys.JOIN_GROUP, "0-9",
            ApiKeys.HEARTBEAT, "0-4",
            ApiKeys.CONSUMER_GROUP_HEARTBEAT, "0-1",
            ApiKeys.CONSUMER_GROUP_DESCRIBE, "0-1",
            ApiKeys.LEAVE_GROUP, "0-5",
            ApiKeys.SYNC_GROUP, "0-5",
            ApiKeys.DESCRIBE_GROUPS, "0-6",
            ApiKeys.LIST_GROUPS, "0-5",
            ApiKeys.API_VERSIONS, "0-5",
            ApiKeys.CREATE_TOPICS, "2-7",
            ApiKeys.DELETE_TOPICS, "1-6",
            ApiKeys.DELETE_RECORDS, "0-2",
            ApiKeys.INIT_PRODUCER_ID, "0-5",
            ApiKeys.ADD_PARTITIONS_TO_TXN, "0-5",
            ApiKeys.ADD_OFFSETS_TO_TXN, "0-4",
            ApiKeys.END_TXN, "0-5",
            ApiKeys.OFFSET_FOR_LEADER_EPOCH, "2-4",
            ApiKeys.DESCRIBE_CONFIGS, "1-4",
            ApiKeys.CREATE_PARTITIONS, "0-3",
            ApiKeys.DELETE_GROUPS, "0-3",
            ApiKeys.ELECT_LEADERS, "0-2",
            ApiKeys.INCREMENTAL_ALTER_CONFIGS, "0-1",
            ApiKeys.ALTER_CONFIGS, "0-2",
            ApiKeys.DESCRIBE_LOG_DIRS, "1-5",
            ApiKeys.DESCRIBE_TOPIC_PARTITIONS, "0-0",
            ApiKeys.DESCRIBE_CLIENT_QUOTAS, "0-1",
            ApiKeys.ALTER_CLIENT_QUOTAS, "0-1",
            ApiKeys.ALTER_PARTITION_REASSIGNMENTS, "0-1",
            ApiKeys.LIST_PARTITION_REASSIGNMENTS, "0-0",
            ApiKeys.OFFSET_DELETE, "0-0",
            ApiKeys.DESCRIBE_CLUSTER, "0-2",
            ApiKeys.DESCRIBE_PRODUCERS, "0-0",
            ApiKeys.WRITE_TXN_MARKERS, "1-1",
            ApiKeys.DESCRIBE_TRANSACTIONS, "0-0",
            ApiKeys.LIST_TRANSACTIONS, "0-2",

            ApiKeys.SASL_HANDSHAKE, "0-1",
            ApiKeys.SASL_AUTHENTICATE, "0-2",
            ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, "0-0",
            ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, "0-0",
            ApiKeys.DESCRIBE_ACLS, "1-3",
            ApiKeys.CREATE_ACLS, "1-3",
            ApiKeys.DELETE_ACLS, "1-3");

    /**
     * Where Samsa advertises less than a Kafka broker of its kafka-clients' line (4.4) does, and why: the new version
     * needs work that no handler has yet.
     */
    private static final Map<ApiKeys, String> BELOW_KAFKA = pinned(
            ApiKeys.WRITE_TXN_MARKERS, "v2 (KIP-1228) carries the marker's transaction version, which a leader must check");

    /** "Produce v3-13" or "OffsetDelete v0": the API's Kafka name and its versions, first in the class comment. */
    private static final Pattern HEADER = Pattern.compile("^ \\* ([A-Za-z]+) v(\\d+)(?:-(\\d+))?", Pattern.MULTILINE);

    @Test
    void theAdvertisedVersionsAreThePinnedOnes() {
        Map<ApiKeys, String> advertised = new LinkedHashMap<>();
        for (Handlers.Registration r : Handlers.standard().all()) {
            advertised.put(r.apiKey(), r.minVersion() + "-" + r.maxVersion());
        }
        assertThat(advertised).as("ApiVersions, as Handlers.standard() states it").containsExactlyInAnyOrderEntriesOf(ADVERTISED);
    }

    /**
     * A Kafka broker advertises every version from the oldest its kafka-clients knows to the latest that is not
     * unstable (ApiKeys.latestVersion(false), what {@code unstable.api.versions.enable=false} gives); so does Samsa,
     * but for the APIs listed in {@link #BELOW_KAFKA}.
     */
    @Test
    void theAdvertisedVersionsAreKafkasButWhereListed() {
        Map<ApiKeys, String> kafka = new LinkedHashMap<>();
        Map<ApiKeys, String> samsa = new LinkedHashMap<>();
        for (Handlers.Registration r : Handlers.standard().all()) {
            if (!BELOW_KAFKA.containsKey(r.apiKey())) {
                kafka.put(r.apiKey(), r.apiKey().oldestVersion() + "-" + r.apiKey().latestVersion(false));
                samsa.put(r.apiKey(), r.minVersion() + "-" + r.maxVersion());
            } else {
                assertThat(r.maxVersion()).as("%s is listed as below Kafka's", r.apiKey()).isLessThan(r.apiKey().latestVersion(false));
            }
        }
        assertThat(samsa).isEqualTo(kafka);
    }

    @Test
    void everyHandlerHeaderNamesTheVersionsItIsRegisteredWith() throws IOException {
        for (Handlers.Registration r : Handlers.standard().all()) {
            Class<?> type = r.handler().getClass();
            Path source = Path.of("src/main/java", type.getName().replace('.', '/') + ".java");
            Matcher header = HEADER.matcher(Files.readString(source));
            assertThat(header.find()).as("%s has a header comment naming '%s vMIN-MAX'", source, r.apiKey().name).isTrue();
            String max = header.group(3) != null ? header.group(3) : header.group(2);
            assertThat(header.group(1) + " v" + header.group(2) + "-" + max).as("header of %s", source)
                    .isEqualTo(r.apiKey().name + " v" + r.minVersion() + "-" + r.maxVersion());
        }
    }

    /** An interceptor of every API is shown each request's API as a public {@link Api}; none may lack one. */
    @Test
    void everyServedApiHasAPublicName() {
        for (Handlers.Registration r : Handlers.standard().all()) {
            assertThat(Api.valueOf(r.apiKey().name())).as("Api constant for %s", r.apiKey()).isNotNull();
        }
    }

    @Test
    void aRangeThisKafkaClientsCannotEncodeRefusesTheStart() {
        short beyond = (short) (ApiKeys.PRODUCE.latestVersion() + 1);
        assertThatThrownBy(() -> new Handlers(List.of(serves(new ProduceHandler(), 3, beyond))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ProduceHandler states Produce v3-" + beyond)
                .hasMessageContaining("encodes v" + ApiKeys.PRODUCE.oldestVersion() + "-" + ApiKeys.PRODUCE.latestVersion());
        short older = (short) (ApiKeys.PRODUCE.oldestVersion() - 1);
        assertThatThrownBy(() -> new Handlers(List.of(serves(new ProduceHandler(), older, 13))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("v" + older + "-13");
    }

    @Test
    void anApiRegisteredTwiceRefusesTheStart() {
        assertThatThrownBy(() -> new Handlers(List.of(serves(new ProduceHandler(), 3, 13), serves(new ProduceHandler(), 3, 9))))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("Two handlers registered for PRODUCE");
    }

    private static Map<ApiKeys, String> pinned(Object... keysAndRanges) {
        Map<ApiKeys, String> table = new LinkedHashMap<>();
        for (int i = 0; i < keysAndRanges.length; i += 2) {
            table.put((ApiKeys) keysAndRanges[i], (String) keysAndRanges[i + 1]);
        }
        return table;
    }
}
