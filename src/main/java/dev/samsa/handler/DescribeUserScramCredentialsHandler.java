package dev.samsa.handler;

import dev.samsa.wire.KafkaRequest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData.UserName;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.CredentialInfo;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.security.scram.ScramCredential;

/**
 * DescribeUserScramCredentials v0: the mechanisms and iteration counts of users' SCRAM credentials, never the
 * credentials. All users with one when the list is null or empty; per requested user, as Kafka's ScramImage answers,
 * RESOURCE_NOT_FOUND for a user without credentials and DUPLICATE_RESOURCE for a user named twice. Users given PLAIN
 * passwords only are not SCRAM users and are not listed.
 */
final class DescribeUserScramCredentialsHandler implements ApiHandler {

    @Override
    public ApiKeys apiKey() {
        return ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS;
    }

    @Override
    public void handle(KafkaRequest request, BrokerContext broker) {
        broker.requireCluster(request, AclOperation.DESCRIBE);
        DescribeUserScramCredentialsRequestData data = request.data();
        DescribeUserScramCredentialsResponseData response = new DescribeUserScramCredentialsResponseData();
        List<String> users = data.users() == null || data.users().isEmpty()
                ? List.copyOf(broker.security().credentials().scramUsers())
                : data.users().stream().map(UserName::name).toList();
        Map<String, Integer> times = new HashMap<>();
        users.forEach(u -> times.merge(u, 1, Integer::sum));
        for (String user : users.stream().distinct().toList()) {
            DescribeUserScramCredentialsResult result = new DescribeUserScramCredentialsResult().setUser(user);
            Map<org.apache.kafka.common.security.scram.internals.ScramMechanism, ScramCredential> credentials =
                    broker.security().credentials().scram(user);
            if (times.get(user) > 1) {
                result.setErrorCode(Errors.DUPLICATE_RESOURCE.code()).setErrorMessage(
                        "Cannot describe SCRAM credentials for the same user twice in a single request: " + user);
            } else if (credentials.isEmpty()) {
                result.setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
                        .setErrorMessage("Attempt to describe a user credential that does not exist: " + user);
            } else {
                credentials.forEach((mechanism, credential) -> result.credentialInfos().add(new CredentialInfo()
                        .setMechanism(ScramMechanism.fromMechanismName(mechanism.mechanismName()).type())
                        .setIterations(credential.iterations())));
            }
            response.results().add(result);
        }
        request.respond(response);
    }
}
