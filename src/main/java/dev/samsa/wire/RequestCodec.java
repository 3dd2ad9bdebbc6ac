package dev.samsa.wire;

import java.nio.ByteBuffer;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.network.Send;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.SendBuilder;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.utils.internals.ByteUtils;

/** Frames to requests and responses to frames, with kafka-clients' own message classes doing every byte. */
public final class RequestCodec {

    private RequestCodec() {
    }

    /**
     * Reads the header of one frame (the 4-byte size already stripped).
     *
     * @throws InvalidRequestException for an unknown API key or a malformed header
     */
    public static RequestHeader decodeHeader(ByteBuffer frame) {
        int start = frame.position();
        RequestHeader header = RequestHeader.parse(frame);
        if (header.headerVersion() >= 2 && taggedFieldCount(frame, start) < 0) {
            // The generated reader loops "for i < count", so a negative count reads as none; Kafka closes.
            throw new InvalidRequestException("Error parsing request header: negative number of tagged fields");
        }
        return header;
    }

    /** The tagged-field count of a v2 header: after api key, version, correlation id and the client id. */
    private static int taggedFieldCount(ByteBuffer frame, int start) {
        short clientIdLength = frame.getShort(start + 8);
        ByteBuffer at = frame.duplicate().position(start + 10 + Math.max(0, clientIdLength));
        return ByteUtils.readUnsignedVarint(at);
    }

    /**
     * Reads the body that follows the header. An ApiVersions request of a version this broker does not know is read
     * as v0, as Kafka does, so that it can be answered with UNSUPPORTED_VERSION and the versions the broker has.
     *
     * Bytes left after the body are ignored, as Kafka does.
     *
     * @throws InvalidRequestException when the body does not parse
     */
    public static AbstractRequest decodeBody(RequestHeader header, ByteBuffer frame, boolean versionSupported) {
        if (header.apiKey() == ApiKeys.API_VERSIONS && !versionSupported) {
            return new ApiVersionsRequest(new ApiVersionsRequestData(), (short) 0, header.apiVersion());
        }
        try {
            return AbstractRequest.parseRequest(header.apiKey(), header.apiVersion(), new ByteBufferAccessor(frame)).request;
        } catch (RuntimeException e) {
            throw new InvalidRequestException("Malformed " + header.apiKey() + " v" + header.apiVersion() + " body: " + e, e);
        }
    }

    /**
     * Encodes and decodes one ApiVersions exchange, so that a kafka-clients on the classpath that is not the one the
     * broker was built with stops the cluster's start with a message, instead of killing every connection later.
     *
     * The classpath cannot change under a running JVM, so the exchange runs once and its outcome is kept.
     *
     * @throws IllegalStateException naming the kafka-clients found when the codec cannot run
     */
    public static void selfCheck() {
        if (SelfCheck.FAILURE != null) {
            throw new IllegalStateException(SelfCheck.FAILURE.getMessage(), SelfCheck.FAILURE.getCause());
        }
    }

    private static final class SelfCheck {
        static final IllegalStateException FAILURE = run();

        private static IllegalStateException run() {
            try {
                RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, ApiKeys.API_VERSIONS.latestVersion(), "samsa", 1);
                ByteBuffer frame = RequestUtils.serialize(header.data(), header.headerVersion(),
                        new ApiVersionsRequestData().setClientSoftwareName("samsa").setClientSoftwareVersion("0"),
                        header.apiVersion());
                decodeBody(decodeHeader(frame), frame, true);
                encodeResponse(header, header.apiVersion(), new org.apache.kafka.common.message.ApiVersionsResponseData());
                return null;
            } catch (LinkageError | RuntimeException e) {
                return new IllegalStateException("Samsa's Kafka protocol codec cannot run with the kafka-clients on this "
                        + "classpath (" + org.apache.kafka.common.utils.internals.AppInfoParser.getVersion() + "): " + e, e);
            }
        }
    }

    /**
     * Header and body of a response, without the size prefix.
     *
     * @param version the version the request's body was read at ({@link #decodeBody}): the header's, except for an
     *     ApiVersions request of a version this broker does not serve, answered at v0 as Kafka does
     */
    public static ByteBuffer encodeResponse(RequestHeader requestHeader, short version, ApiMessage response) {
        ResponseHeader header = new ResponseHeader(requestHeader.correlationId(), requestHeader.apiKey().responseHeaderVersion(version));
        return RequestUtils.serialize(header.data(), header.headerVersion(), response, version);
    }

    /**
     * A response as it goes on the wire, size prefix first, the way Kafka's broker sends it: the fields serialized,
     * the record bytes referenced where they lie (in a segment's mapping for a fetch), not copied.
     *
     * @param version as for {@link #encodeResponse}
     */
    public static Send responseSend(RequestHeader requestHeader, short version, ApiMessage response) {
        ResponseHeader header = new ResponseHeader(requestHeader.correlationId(), requestHeader.apiKey().responseHeaderVersion(version));
        return SendBuilder.buildResponseSend(header, response, version);
    }

    /**
     * Lets go of the record bytes a response holds in place (records that are {@link AutoCloseable}, which keep a
     * segment mapped), once the response is sent or dropped.
     */
    public static void releaseRecords(ApiMessage response) {
        if (response instanceof FetchResponseData fetch) {
            for (FetchResponseData.FetchableTopicResponse topic : fetch.responses()) {
                for (FetchResponseData.PartitionData partition : topic.partitions()) {
                    releaseRecords(partition.records());
                }
            }
        }
    }

    /** See {@link #releaseRecords(ApiMessage)}; for records read but not answered. */
    public static void releaseRecords(BaseRecords records) {
        if (records instanceof AutoCloseable held) {
            try {
                held.close();
            } catch (Exception e) {
                throw new IllegalStateException("Cannot release " + records, e);
            }
        }
    }
}
