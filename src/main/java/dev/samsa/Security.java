package dev.samsa;

import java.security.KeyStore;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * How a cluster's clients must connect: its listeners (one per security protocol), the SASL mechanisms its SASL
 * listeners accept, its users, and whether its SSL listener asks for client certificates. Immutable; each method
 * returns a changed copy.
 *
 * <pre>{@code
 * KafkaCluster.builder()
 *         .security(Security.listeners(Security.Protocol.SASL_SSL, Security.Protocol.PLAINTEXT)
 *                 .user("alice", "alice-secret"))
 *         .start();
 * Map<String, Object> config = cluster.producerConfig("alice");   // SASL_SSL, SCRAM-SHA-512, PEM truststore
 * }</pre>
 *
 * <p>A TLS listener gets certificates made at start by the cluster's own certificate authority (brokers: SANs
 * 127.0.0.1 and localhost); client configs carry that CA as a PEM truststore, and with {@link #mutualTls()} a client
 * certificate with subject {@code CN=<user>}. Nothing is written to disk.
 */
public final class Security {

    /** Kafka's security protocols; a listener is named after its protocol. */
    public enum Protocol {
        PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL;

        boolean usesTls() {
            return this == SSL || this == SASL_SSL;
        }

        boolean usesSasl() {
            return this == SASL_PLAINTEXT || this == SASL_SSL;
        }

        org.apache.kafka.common.security.auth.SecurityProtocol toSecurityProtocol() {
            return org.apache.kafka.common.security.auth.SecurityProtocol.valueOf(name());
        }
    }

    /** SASL mechanisms, by their Kafka names ({@link #mechanismName()}). */
    public enum Mechanism {
        PLAIN("PLAIN"), SCRAM_SHA_256("SCRAM-SHA-256"), SCRAM_SHA_512("SCRAM-SHA-512"),
        /**
         * Tokens (KIP-255): Kafka's unsecured JWS tokens by default, or JWTs signed with the key given to
         * {@link #oauthBearerValidationKey}; the principal is the token's {@code sub}.
         */
        OAUTHBEARER("OAUTHBEARER");

        private final String mechanismName;

        Mechanism(String mechanismName) {
            this.mechanismName = mechanismName;
        }

        /** What sasl.mechanism and sasl.enabled.mechanisms say. */
        public String mechanismName() {
            return mechanismName;
        }
    }

    /** How client configs hand out TLS trust and keys: PEM strings in the config, or PKCS12 files. */
    public enum StoreType {
        /** ssl.truststore.type=PEM with ssl.truststore.certificates (and a PEM keystore for mutual TLS): no files. */
        PEM,
        /**
         * ssl.truststore.type=PKCS12 with ssl.truststore.location and ssl.truststore.password (and a PKCS12 keystore
         * for mutual TLS), files written under the cluster's data directory: for clients that take no PEM.
         */
        PKCS12
    }

    private final List<Protocol> listeners;
    private final List<Mechanism> mechanisms;
    private final Map<String, String> users;
    private final boolean mutualTls;
    private final String principalMappingRules;
    private final Acls acls;
    private final Options options;

    /**
     * OAUTHBEARER's token check and the stores TLS uses.
     *
     * @param oauthKey null: Kafka's unsecured tokens; else the key signed tokens verify with
     * @param brokerKeyStore null: certificates from the cluster's own CA
     */
    private record Options(PublicKey oauthKey, List<String> oauthRequiredScope, StoreType clientStores,
                           KeyStore brokerKeyStore, String brokerKeyStorePassword) {

        static final Options DEFAULT = new Options(null, List.of(), StoreType.PEM, null, null);
    }

    /** The authorizer's set-up; null until an ACL method is called, which turns the authorizer on. */
    private record Acls(List<AclBinding> bindings, List<String> superUsers, boolean allowEveryoneIfNoAclFound) {
    }

    private Security(List<Protocol> listeners, List<Mechanism> mechanisms, Map<String, String> users, boolean mutualTls,
                     String principalMappingRules, Acls acls, Options options) {
        this.acls = acls;
        this.options = options;
        this.listeners = List.copyOf(listeners);
        this.mechanisms = List.copyOf(mechanisms);
        this.users = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(users));
        this.mutualTls = mutualTls;
        this.principalMappingRules = principalMappingRules;
    }

    /**
     * Every broker listens once per protocol, in this order; the first is the one {@link KafkaCluster#bootstrapServers()}
     * and the configs without a protocol name use. SASL listeners accept SCRAM-SHA-512, SCRAM-SHA-256 and PLAIN.
     *
     * @throws IllegalArgumentException for no protocol or one named twice
     */
    public static Security listeners(Protocol first, Protocol... more) {
        List<Protocol> all = new ArrayList<>();
        all.add(Objects.requireNonNull(first, "first"));
        for (Protocol p : more) {
            if (all.contains(p)) {
                throw new IllegalArgumentException("Listener " + p + " is named twice; a cluster has one listener per protocol");
            }
            all.add(Objects.requireNonNull(p, "protocol"));
        }
        return new Security(all, List.of(Mechanism.SCRAM_SHA_512, Mechanism.SCRAM_SHA_256, Mechanism.PLAIN), Map.of(),
                false, "DEFAULT", null, Options.DEFAULT);
    }

    /**
     * The mechanisms SASL listeners accept (sasl.enabled.mechanisms); the first is the one client configs use.
     *
     * @throws IllegalArgumentException for none
     */
    public Security mechanisms(Mechanism first, Mechanism... more) {
        List<Mechanism> all = new ArrayList<>();
        all.add(Objects.requireNonNull(first, "first"));
        for (Mechanism m : more) {
            if (!all.contains(m)) {
                all.add(Objects.requireNonNull(m, "mechanism"));
            }
        }
        return new Security(listeners, all, users, mutualTls, principalMappingRules, acls, options);
    }

    /**
     * A user with a password: PLAIN accepts it, and every enabled SCRAM mechanism has a credential for it (4096
     * iterations, as kafka-configs makes one). For mutual TLS the user is the client certificate's common name.
     */
    public Security user(String name, String password) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("A user needs a name");
        }
        Map<String, String> all = new LinkedHashMap<>(users);
        all.put(name, Objects.requireNonNull(password, "password"));
        return new Security(listeners, mechanisms, all, mutualTls, principalMappingRules, acls, options);
    }

    /**
     * OAUTHBEARER accepts only JWTs signed with {@code key}'s private key (RS256 for an RSA key, ES256 for an EC one),
     * with {@code sub}, {@code iat} and {@code exp} ({@code exp} and {@code nbf} within 30 s of clock skew), as Kafka's
     * OAuthBearerValidatorCallbackHandler checks them; without it, Kafka's unsecured tokens (alg none) are accepted.
     * Client configs then carry no token: the test's own sasl.login.callback.handler.class supplies one.
     *
     * @throws IllegalArgumentException for a key that is neither RSA nor EC
     */
    public Security oauthBearerValidationKey(PublicKey key) {
        Objects.requireNonNull(key, "key");
        if (!key.getAlgorithm().equals("RSA") && !key.getAlgorithm().equals("EC")) {
            throw new IllegalArgumentException("An OAUTHBEARER validation key is RSA or EC, not " + key.getAlgorithm());
        }
        return withOptions(new Options(key, options.oauthRequiredScope(), options.clientStores(),
                options.brokerKeyStore(), options.brokerKeyStorePassword()));
    }

    /**
     * OAUTHBEARER tokens must carry each of these scopes (Kafka's unsecuredValidatorRequiredScope; Samsa applies it to
     * signed tokens too); a token without one is refused with {@code insufficient_scope}.
     */
    public Security oauthBearerRequiredScope(String... scope) {
        return withOptions(new Options(options.oauthKey(), List.of(scope), options.clientStores(),
                options.brokerKeyStore(), options.brokerKeyStorePassword()));
    }

    /**
     * How client configs hand out TLS trust (and client keys for mutual TLS): PEM strings, the default, or PKCS12
     * files under the cluster's data directory with ssl.truststore.password (and ssl.keystore.password,
     * ssl.key.password) set.
     */
    public Security clientStores(StoreType type) {
        return withOptions(new Options(options.oauthKey(), options.oauthRequiredScope(), Objects.requireNonNull(type, "type"),
                options.brokerKeyStore(), options.brokerKeyStorePassword()));
    }

    /**
     * Every broker's TLS listeners present the one key entry of {@code keyStore} (its certificate should name
     * 127.0.0.1 or localhost, as clients check the host name) instead of a certificate from the cluster's CA. Client
     * configs trust the last certificate of that entry's chain. Mutual TLS client certificates still come from the
     * cluster's CA.
     *
     * @param password the keystore's key password
     * @throws IllegalArgumentException when the keystore does not hold exactly one key entry
     */
    public Security brokerKeyStore(KeyStore keyStore, String password) {
        new dev.samsa.security.BrokerKeyStore(Objects.requireNonNull(keyStore, "keyStore"),
                Objects.requireNonNull(password, "password").toCharArray());
        return withOptions(new Options(options.oauthKey(), options.oauthRequiredScope(), options.clientStores(), keyStore,
                password));
    }

    /**
     * {@link #brokerKeyStore} from PEM: an unencrypted PKCS#8 private key ({@code -----BEGIN PRIVATE KEY-----}, RSA or
     * EC) and its certificate chain, leaf first.
     *
     * @throws IllegalArgumentException when either cannot be read
     */
    public Security brokerCertificate(String privateKeyPem, String certificateChainPem) {
        var keys = dev.samsa.security.BrokerKeyStore.fromPem(Objects.requireNonNull(privateKeyPem, "privateKeyPem"),
                Objects.requireNonNull(certificateChainPem, "certificateChainPem"));
        return brokerKeyStore(keys.store(), new String(keys.password()));
    }

    private Security withOptions(Options changed) {
        return new Security(listeners, mechanisms, users, mutualTls, principalMappingRules, acls, changed);
    }

    /**
     * The SSL and SASL_SSL listeners require client certificates (ssl.client.auth=required, which Kafka applies to
     * both). On SSL the principal is the certificate's DN as {@link #principalMappingRules} maps it, on SASL_SSL the
     * SASL user, as in Kafka.
     */
    public Security mutualTls() {
        return new Security(listeners, mechanisms, users, true, principalMappingRules, acls, options);
    }

    /** ssl.principal.mapping.rules, e.g. {@code "RULE:^CN=(.*)$/$1/,DEFAULT"} to call {@code CN=alice} alice. */
    public Security principalMappingRules(String rules) {
        return new Security(listeners, mechanisms, users, mutualTls, Objects.requireNonNull(rules, "rules"), acls, options);
    }

    /** The resource types an ACL can name, as Kafka names them. */
    public enum Resource {
        TOPIC, GROUP, CLUSTER, TRANSACTIONAL_ID
    }

    /** ACL operations, as Kafka names them; READ, WRITE, DELETE and ALTER imply DESCRIBE. */
    public enum Operation {
        ALL, READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE
    }

    /**
     * Turns the authorizer on (Kafka's StandardAuthorizer) and lets {@code user} ({@code "*"}: everyone) do
     * {@code operation} on the resource named {@code name} ({@code "*"}: every one; the cluster is "kafka-cluster"),
     * from any host. With the authorizer on, a principal no ACL allows is refused (allow.everyone.if.no.acl.found=false,
     * Kafka's default), on every listener, PLAINTEXT included (its principal is User:ANONYMOUS).
     */
    public Security allow(String user, Operation operation, Resource type, String name) {
        return acl(user, operation, type, name, PatternType.LITERAL, AclPermissionType.ALLOW);
    }

    /** {@link #allow} for every resource whose name starts with {@code prefix} (a PREFIXED ACL). */
    public Security allowPrefixed(String user, Operation operation, Resource type, String prefix) {
        return acl(user, operation, type, prefix, PatternType.PREFIXED, AclPermissionType.ALLOW);
    }

    /** Turns the authorizer on and refuses {@code user} the operation, whatever any ALLOW says (DENY wins). */
    public Security deny(String user, Operation operation, Resource type, String name) {
        return acl(user, operation, type, name, PatternType.LITERAL, AclPermissionType.DENY);
    }

    /**
     * Adds an ACL written as one line, the form {@code @EmbeddedKafkaCluster(acls = ...)} and the launcher's
     * {@code --acl} take: {@code "PRINCIPAL ALLOW|DENY OPERATION RESOURCE [LITERAL|PREFIXED] NAME"}, e.g.
     * {@code "User:alice ALLOW READ TOPIC orders"}, {@code "User:alice ALLOW WRITE TOPIC PREFIXED orders-"},
     * {@code "User:* DENY ALL GROUP *"}. The principal is Kafka's {@code User:name} ({@code User:*}: everyone;
     * {@code User:ANONYMOUS} on a PLAINTEXT listener), operations and resources are {@link Operation} and
     * {@link Resource} (case does not matter), the name {@code *} (LITERAL) is every resource of the type, and the
     * cluster is {@code kafka-cluster}. Any host. Turns the authorizer on, as {@link #allow} does.
     *
     * @throws IllegalArgumentException naming what in the line is wrong
     */
    public Security acl(String line) {
        String[] words = Objects.requireNonNull(line, "line").trim().split("\\s+");
        if (words.length != 5 && words.length != 6) {
            throw new IllegalArgumentException("An ACL is \"PRINCIPAL ALLOW|DENY OPERATION RESOURCE [LITERAL|PREFIXED] NAME\","
                    + " e.g. \"User:alice ALLOW READ TOPIC orders\"; got \"" + line + "\"");
        }
        if (!words[0].startsWith(KafkaPrincipal.USER_TYPE + ":") || words[0].length() == KafkaPrincipal.USER_TYPE.length() + 1) {
            throw new IllegalArgumentException("An ACL's principal is User:name or User:*; got \"" + words[0] + "\" in \"" + line + "\"");
        }
        AclPermissionType permission = word(line, words[1], "ALLOW or DENY", AclPermissionType.class);
        if (permission != AclPermissionType.ALLOW && permission != AclPermissionType.DENY) {
            throw new IllegalArgumentException("An ACL says ALLOW or DENY; got \"" + words[1] + "\" in \"" + line + "\"");
        }
        Operation operation = word(line, words[2], "an operation " + Arrays.toString(Operation.values()), Operation.class);
        Resource type = word(line, words[3], "a resource type " + Arrays.toString(Resource.values()), Resource.class);
        PatternType pattern = PatternType.LITERAL;
        if (words.length == 6) {
            pattern = word(line, words[4], "LITERAL or PREFIXED", PatternType.class);
            if (pattern != PatternType.LITERAL && pattern != PatternType.PREFIXED) {
                throw new IllegalArgumentException("An ACL's pattern is LITERAL or PREFIXED; got \"" + words[4] + "\" in \"" + line + "\"");
            }
        }
        return acl(words[0].substring(KafkaPrincipal.USER_TYPE.length() + 1), operation, type, words[words.length - 1],
                pattern, permission);
    }

    private static <E extends Enum<E>> E word(String line, String word, String expected, Class<E> type) {
        try {
            return Enum.valueOf(type, word.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Expected " + expected + ", got \"" + word + "\" in ACL \"" + line + "\"");
        }
    }

    private Security acl(String user, Operation operation, Resource type, String name, PatternType pattern,
                         AclPermissionType permission) {
        Acls a = aclsOrDefault();
        List<AclBinding> all = new ArrayList<>(a.bindings());
        all.add(new AclBinding(new ResourcePattern(ResourceType.valueOf(type.name()), Objects.requireNonNull(name, "name"), pattern),
                new AccessControlEntry(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, Objects.requireNonNull(user, "user")).toString(),
                        "*", AclOperation.valueOf(operation.name()), permission)));
        return withAcls(new Acls(all, a.superUsers(), a.allowEveryoneIfNoAclFound()));
    }

    /** Turns the authorizer on; these users (names as in {@link #user}) may do everything (super.users). */
    public Security superUsers(String... names) {
        Acls a = aclsOrDefault();
        List<String> all = new ArrayList<>(a.superUsers());
        for (String name : names) {
            all.add(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, name).toString());
        }
        return withAcls(new Acls(a.bindings(), all, a.allowEveryoneIfNoAclFound()));
    }

    /** Turns the authorizer on; a resource no ACL matches is open to everyone (allow.everyone.if.no.acl.found=true). */
    public Security allowEveryoneIfNoAclFound() {
        Acls a = aclsOrDefault();
        return withAcls(new Acls(a.bindings(), a.superUsers(), true));
    }

    private Acls aclsOrDefault() {
        return acls != null ? acls : new Acls(List.of(), List.of(), false);
    }

    private Security withAcls(Acls changed) {
        return new Security(listeners, mechanisms, users, mutualTls, principalMappingRules, changed, options);
    }

    boolean aclsEnabled() {
        return acls != null;
    }

    List<AclBinding> acls() {
        return aclsOrDefault().bindings();
    }

    List<String> superUsers() {
        return aclsOrDefault().superUsers();
    }

    boolean isAllowEveryoneIfNoAclFound() {
        return aclsOrDefault().allowEveryoneIfNoAclFound();
    }

    PublicKey oauthBearerKey() {
        return options.oauthKey();
    }

    List<String> oauthBearerRequiredScope() {
        return options.oauthRequiredScope();
    }

    StoreType clientStoreType() {
        return options.clientStores();
    }

    dev.samsa.security.BrokerKeyStore brokerKeyStore() {
        return options.brokerKeyStore() == null ? null
                : new dev.samsa.security.BrokerKeyStore(options.brokerKeyStore(), options.brokerKeyStorePassword().toCharArray());
    }

    List<Protocol> listeners() {
        return listeners;
    }

    List<Mechanism> mechanisms() {
        return mechanisms;
    }

    Map<String, String> users() {
        return users;
    }

    boolean isMutualTls() {
        return mutualTls;
    }

    String principalMappingRules() {
        return principalMappingRules;
    }

    @Override
    public String toString() {
        return "listeners " + listeners + ", SASL " + mechanisms + ", users " + users.keySet()
                + (mutualTls ? ", mutual TLS" : "") + (acls != null ? ", " + acls.bindings().size() + " ACLs" : "");
    }
}
