package dev.samsa.handler;

import dev.samsa.security.SaslCredentials;
import dev.samsa.wire.KafkaRequest;
import java.security.GeneralSecurityException;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialDeletion;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialUpsertion;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;

/**
 * AlterUserScramCredentials v0: upserts and deletes SCRAM credentials, validated as Kafka's ScramControlManager does:
 * a user named twice in one request gets DUPLICATE_RESOURCE, an empty name UNACCEPTABLE_CREDENTIAL, an unknown
 * mechanism UNSUPPORTED_SASL_MECHANISM, iterations outside the mechanism's 4096..16384 UNACCEPTABLE_CREDENTIAL, a
 * deletion of a missing credential RESOURCE_NOT_FOUND; each user's result stands alone. The client sends a salted
 * password; the broker derives the stored and server keys from it. Credentials live in memory: a cluster started again
 * on the same data directory has only the builder's users.
 */
final class AlterUserScramCredentialsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.ALTER_USER_SCRAM_CREDENTIALS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        broker.requireCluster(request, AclOperation.ALTER);
        AlterUserScramCredentialsRequestData data = request.data();
        SaslCredentials credentials = broker.security().credentials();
        Map<String, Integer> times = new HashMap<>();
        data.deletions().forEach(d -> times.merge(d.name(), 1, Integer::sum));
        data.upsertions().forEach(u -> times.merge(u.name(), 1, Integer::sum));
        AlterUserScramCredentialsResponseData response = new AlterUserScramCredentialsResponseData();
        for (ScramCredentialDeletion deletion : data.deletions()) {
            ApiError error = times.get(deletion.name()) > 1 ? duplicate() : validate(deletion.name(), deletion.mechanism());
            if (error.isSuccess() && !credentials.removeScram(deletion.name(), internal(deletion.mechanism()))) {
                error = new ApiError(Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist");
            }
            response.results().add(result(deletion.name(), error));
        }
        for (ScramCredentialUpsertion upsertion : data.upsertions()) {
            ApiError error = times.get(upsertion.name()) > 1 ? duplicate() : validateUpsertion(upsertion);
            if (error.isSuccess()) {
                upsert(credentials, upsertion);
            }
            response.results().add(result(upsertion.name(), error));
        }
        request.respond(response);
    }

    private static void upsert(SaslCredentials credentials, ScramCredentialUpsertion upsertion) {
        var mechanism = internal(upsertion.mechanism());
        try {
            credentials.putScram(upsertion.name(), mechanism, new ScramFormatter(mechanism)
                    .generateCredential(upsertion.salt(), upsertion.saltedPassword(), upsertion.iterations()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("This JDK cannot compute " + mechanism + " keys", e);
        }
    }

    private static ApiError validateUpsertion(ScramCredentialUpsertion upsertion) {
        ApiError error = validate(upsertion.name(), upsertion.mechanism());
        if (error.isFailure()) {
            return error;
        }
        var mechanism = internal(upsertion.mechanism());
        if (upsertion.iterations() < mechanism.minIterations()) {
            return new ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations");
        }
        if (upsertion.iterations() > mechanism.maxIterations()) {
            return new ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations");
        }
        return ApiError.NONE;
    }

    private static ApiError validate(String user, byte mechanism) {
        if (user.isEmpty()) {
            return new ApiError(Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty");
        }
        if (ScramMechanism.fromType(mechanism) == ScramMechanism.UNKNOWN) {
            return new ApiError(Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism");
        }
        return ApiError.NONE;
    }

    private static ApiError duplicate() {
        return new ApiError(Errors.DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request");
    }

    private static org.apache.kafka.common.security.scram.internals.ScramMechanism internal(byte type) {
        return org.apache.kafka.common.security.scram.internals.ScramMechanism.forMechanismName(
                ScramMechanism.fromType(type).mechanismName());
    }

    private static AlterUserScramCredentialsResult result(String user, ApiError error) {
        return new AlterUserScramCredentialsResult().setUser(user).setErrorCode(error.error().code())
                .setErrorMessage(error.message());
    }
}
