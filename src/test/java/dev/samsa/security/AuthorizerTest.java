package dev.samsa.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The decisions of StandardAuthorizer, one rule per test. */
class AuthorizerTest {

    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");
    private static final String HOST = "127.0.0.1";

    @Test
    void readWriteDeleteAndAlterImplyDescribeButNotEachOther() {
        Authorizer a = authorizer(acl("User:alice", "*", "orders", PatternType.LITERAL, AclOperation.WRITE, AclPermissionType.ALLOW));
        assertThat(a.authorize(ALICE, HOST, AclOperation.DESCRIBE, ResourceType.TOPIC, "orders")).isTrue();
        assertThat(a.authorize(ALICE, HOST, AclOperation.WRITE, ResourceType.TOPIC, "orders")).isTrue();
        assertThat(a.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "orders")).isFalse();
    }

    @Test
    void denyOfAllBeatsAnAllowAndDenyOfReadLeavesDescribe() {
        Authorizer a = authorizer(
                acl("User:*", "*", "*", PatternType.LITERAL, AclOperation.ALL, AclPermissionType.ALLOW),
                acl("User:alice", "*", "secret", PatternType.LITERAL, AclOperation.READ, AclPermissionType.DENY),
                acl("User:alice", "*", "vault", PatternType.LITERAL, AclOperation.ALL, AclPermissionType.DENY));
        assertThat(a.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "secret")).isFalse();
        assertThat(a.authorize(ALICE, HOST, AclOperation.DESCRIBE, ResourceType.TOPIC, "secret")).isTrue();
        assertThat(a.authorize(ALICE, HOST, AclOperation.DESCRIBE, ResourceType.TOPIC, "vault")).isFalse();
        assertThat(a.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "anything")).isTrue();
    }

    @Test
    void anAclForAnotherHostDoesNotApply() {
        Authorizer a = authorizer(acl("User:alice", "10.0.0.1", "orders", PatternType.LITERAL, AclOperation.READ, AclPermissionType.ALLOW));
        assertThat(a.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "orders")).isFalse();
        assertThat(a.authorize(ALICE, "10.0.0.1", AclOperation.READ, ResourceType.TOPIC, "orders")).isTrue();
    }

    @Test
    void allowEveryoneIfNoAclFoundOpensOnlyResourcesWithoutAcls() {
        Authorizer a = new Authorizer(true, List.of(), true, List.of(
                acl("User:bob", "*", "orders", PatternType.LITERAL, AclOperation.READ, AclPermissionType.ALLOW)));
        assertThat(a.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "payments")).isTrue();
        assertThat(a.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "orders")).isFalse();
    }

    @Test
    void superUsersAndADisabledAuthorizerAllowEverything() {
        Authorizer a = new Authorizer(true, List.of("User:alice"), false, List.of(
                acl("User:alice", "*", "orders", PatternType.LITERAL, AclOperation.ALL, AclPermissionType.DENY)));
        assertThat(a.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "orders")).isTrue();
        assertThat(Authorizer.disabled().authorize(KafkaPrincipal.ANONYMOUS, HOST, AclOperation.ALTER, ResourceType.CLUSTER,
                "kafka-cluster")).isTrue();
    }

    @Test
    void deleteRemovesWhatTheFilterMatches() {
        AclBinding prefixed = acl("User:alice", "*", "orders-", PatternType.PREFIXED, AclOperation.READ, AclPermissionType.ALLOW);
        Authorizer a = authorizer(prefixed);
        assertThat(a.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "orders-eu")).isTrue();
        assertThat(a.delete(AclBindingFilter.ANY)).containsExactly(prefixed);
        assertThat(a.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "orders-eu")).isFalse();
    }

    @Test
    void aDenyOfReadDoesNotImplyADenyOfDescribeButAnAllowImpliesIt() {
        Authorizer a = authorizer(
                acl("User:alice", "*", "orders", PatternType.LITERAL, AclOperation.ALTER_CONFIGS, AclPermissionType.ALLOW),
                acl("User:alice", "*", "orders", PatternType.LITERAL, AclOperation.ALTER_CONFIGS, AclPermissionType.DENY));
        assertThat(a.authorize(ALICE, HOST, AclOperation.ALTER_CONFIGS, ResourceType.TOPIC, "orders")).isFalse();
        assertThat(a.authorize(ALICE, HOST, AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, "orders")).isTrue();
    }

    @Test
    void aPrefixedAclMatchesOnlyNamesStartingWithItAndALiteralOnlyItsName() {
        Authorizer a = authorizer(
                acl("User:alice", "*", "ord", PatternType.LITERAL, AclOperation.READ, AclPermissionType.ALLOW),
                acl("User:alice", "*", "orders-", PatternType.PREFIXED, AclOperation.READ, AclPermissionType.ALLOW),
                acl("User:alice", "*", "*", PatternType.PREFIXED, AclOperation.READ, AclPermissionType.ALLOW));
        assertThat(a.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "orders-eu")).isTrue();
        assertThat(a.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "ord")).isTrue();
        assertThat(a.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "orders")).isFalse();
        // '*' is a wildcard only as a LITERAL name; a PREFIXED '*' matches names that start with '*'
        assertThat(a.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "payments")).isFalse();
        assertThat(a.authorize(ALICE, HOST, AclOperation.READ, ResourceType.TOPIC, "*payments")).isTrue();
    }

    @Test
    void aPrefixedDenyBeatsAWildcardPrincipalAllowOnTheExactName() {
        Authorizer a = authorizer(
                acl("User:*", "*", "orders-eu", PatternType.LITERAL, AclOperation.WRITE, AclPermissionType.ALLOW),
                acl("User:alice", "*", "orders-", PatternType.PREFIXED, AclOperation.ALL, AclPermissionType.DENY));
        assertThat(a.authorize(ALICE, HOST, AclOperation.WRITE, ResourceType.TOPIC, "orders-eu")).isFalse();
        assertThat(a.authorize(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "bob"), HOST, AclOperation.WRITE,
                ResourceType.TOPIC, "orders-eu")).isTrue();
    }

    @Test
    void allowEveryoneIfNoAclFoundCountsAclsOfAnyPrincipalAndOperationOnTheResource() {
        Authorizer a = new Authorizer(true, List.of(), true, List.of(
                acl("User:bob", "10.0.0.1", "orders-", PatternType.PREFIXED, AclOperation.DESCRIBE, AclPermissionType.ALLOW)));
        assertThat(a.authorize(ALICE, HOST, AclOperation.WRITE, ResourceType.TOPIC, "orders-eu")).isFalse();
        assertThat(a.authorize(ALICE, HOST, AclOperation.WRITE, ResourceType.TOPIC, "orders")).isTrue();
        assertThat(a.authorize(ALICE, HOST, AclOperation.WRITE, ResourceType.GROUP, "orders-eu")).isTrue();
    }

    @Test
    void authorizeAnyCountsOnlyTheExactOperationAndDominatingDenies() {
        assertThat(authorizer(acl("User:alice", "*", "orders", PatternType.LITERAL, AclOperation.ALL, AclPermissionType.ALLOW))
                .authorizeAny(ALICE, HOST, AclOperation.WRITE, ResourceType.TOPIC)).isTrue();
        // READ implies DESCRIBE for a resource, but does not count for "some resource of the type"
        assertThat(authorizer(acl("User:alice", "*", "orders", PatternType.LITERAL, AclOperation.READ, AclPermissionType.ALLOW))
                .authorizeAny(ALICE, HOST, AclOperation.DESCRIBE, ResourceType.TOPIC)).isFalse();
        assertThat(authorizer(
                acl("User:alice", "*", "orders-eu", PatternType.LITERAL, AclOperation.WRITE, AclPermissionType.ALLOW),
                acl("User:alice", "*", "orders", PatternType.PREFIXED, AclOperation.WRITE, AclPermissionType.DENY))
                .authorizeAny(ALICE, HOST, AclOperation.WRITE, ResourceType.TOPIC)).isFalse();
        // a prefixed ALLOW is not cancelled by a literal DENY of the same name
        assertThat(authorizer(
                acl("User:alice", "*", "orders", PatternType.PREFIXED, AclOperation.WRITE, AclPermissionType.ALLOW),
                acl("User:alice", "*", "orders", PatternType.LITERAL, AclOperation.WRITE, AclPermissionType.DENY))
                .authorizeAny(ALICE, HOST, AclOperation.WRITE, ResourceType.TOPIC)).isTrue();
        assertThat(authorizer(
                acl("User:*", "*", "*", PatternType.LITERAL, AclOperation.WRITE, AclPermissionType.ALLOW),
                acl("User:alice", "*", "*", PatternType.LITERAL, AclOperation.WRITE, AclPermissionType.DENY))
                .authorizeAny(ALICE, HOST, AclOperation.WRITE, ResourceType.TOPIC)).isFalse();
    }

    @Test
    void authorizeAnyPassesSuperUsersAndAllowEveryoneIfNoAclFound() {
        AclBinding deny = acl("User:alice", "*", "*", PatternType.LITERAL, AclOperation.WRITE, AclPermissionType.DENY);
        assertThat(new Authorizer(true, List.of("User:alice"), false, List.of(deny))
                .authorizeAny(ALICE, HOST, AclOperation.WRITE, ResourceType.TOPIC)).isTrue();
        assertThat(new Authorizer(true, List.of(), true, List.of())
                .authorizeAny(ALICE, HOST, AclOperation.WRITE, ResourceType.TOPIC)).isTrue();
    }

    @Test
    void theBuilderAclsSeedAFreshDirectoryOnlySoADeletionSurvivesARestart(@TempDir Path dir) {
        Path file = dir.resolve("metadata").resolve("acls.properties");
        AclBinding seeded = acl("User:alice", "*", "orders", PatternType.LITERAL, AclOperation.READ, AclPermissionType.ALLOW);
        AclBinding created = acl("User:bob", "*", "orders", PatternType.LITERAL, AclOperation.READ, AclPermissionType.ALLOW);
        Authorizer first = new Authorizer(true, List.of(), false, List.of(seeded), file);
        first.add(created);
        first.delete(new AclBindingFilter(seeded.pattern().toFilter(), seeded.entry().toFilter()));

        Authorizer again = new Authorizer(true, List.of(), false, List.of(seeded), file);
        assertThat(again.describe(AclBindingFilter.ANY)).containsExactly(created);
    }

    @Test
    void aDenialIsReportedOnceUntilTheAclsChange() {
        Authorizer a = authorizer();
        List<String> key = List.of("User:alice", "READ", "TOPIC", "orders", "FETCH");
        assertThat(a.firstDenial(key)).isTrue();
        assertThat(a.firstDenial(key)).isFalse();
        a.add(acl("User:bob", "*", "orders", PatternType.LITERAL, AclOperation.READ, AclPermissionType.ALLOW));
        assertThat(a.firstDenial(key)).isTrue();
    }

    private static Authorizer authorizer(AclBinding... acls) {
        return new Authorizer(true, List.of(), false, List.of(acls));
    }

    private static AclBinding acl(String principal, String host, String topic, PatternType pattern, AclOperation operation,
                                  AclPermissionType permission) {
        return new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, pattern),
                new AccessControlEntry(principal, host, operation, permission));
    }
}
