package dev.samsa.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;
import org.junit.jupiter.api.Test;

class RequestCodecTest {

    /**
     * A broker whose version table stops below what kafka-clients knows must still answer an ApiVersions request of
     * the newer version at v0, as Kafka does, so that any client can read the error and the versions offered.
     */
    @Test
    void anApiVersionsRequestOfAVersionNotServedIsAnsweredAtVersionZero() {
        short asked = ApiKeys.API_VERSIONS.latestVersion(); // known to kafka-clients, not served by this table
        RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, asked, "client", 7);
        ByteBuffer frame = RequestUtils.serialize(header.data(), header.headerVersion(),
                new ApiVersionsRequestData().setClientSoftwareName("client").setClientSoftwareVersion("1"), asked);

        AbstractRequest body = RequestCodec.decodeBody(RequestCodec.decodeHeader(frame), frame, false);
        ByteBuffer answer = RequestCodec.encodeResponse(header, body.version(), new ApiVersionsResponseData()
                .setErrorCode(Errors.UNSUPPORTED_VERSION.code()));

        assertThat(body.version()).isZero();
        ResponseHeader responseHeader = ResponseHeader.parse(answer, ApiKeys.API_VERSIONS.responseHeaderVersion((short) 0));
        assertThat(responseHeader.correlationId()).isEqualTo(7);
        ApiVersionsResponseData decoded = new ApiVersionsResponseData(new ByteBufferAccessor(answer), (short) 0);
        assertThat(decoded.errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(answer.remaining()).as("nothing past the v0 body").isZero();
    }
}
