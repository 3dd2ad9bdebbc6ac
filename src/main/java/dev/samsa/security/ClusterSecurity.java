package dev.samsa.security;

import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;

/**
 * A cluster's security set-up: its listeners (one per security protocol, the first being the one clients get by
 * default), its certificate authority when a listener uses TLS, its SASL users, and the port each broker listens on
 * for each listener, which Metadata, FindCoordinator and DescribeCluster advertise to a client on that listener.
 *
 * <p>Brokers keep their certificate across restarts (until a fault rotates it, see {@link #rotateCertificate}), and a
 * user keeps one client certificate, so that clients holding either never see it change. A test may bring the
 * brokers' keystore itself ({@link BrokerKeyStore}); the CA then only issues client certificates.
 */
public final class ClusterSecurity {

    private final List<SecurityProtocol> protocols;
    private final List<String> saslMechanisms;
    private final boolean mutualTls;
    private final long maxReauthenticationMs;
    private final SslPrincipalMapper principalMapper;
    private final SaslCredentials credentials;
    private final CertificateAuthority ca;
    private final BrokerKeyStore brokerKeys;
    private final Map<Integer, AtomicReference<SSLContext>> brokerTls = new ConcurrentHashMap<>();
    private final Authorizer authorizer;
    private final Map<Integer, List<ListenerSecurity>> brokerListeners = new ConcurrentHashMap<>();
    private final Map<String, CertificateAuthority.Issued> clientIdentities = new ConcurrentHashMap<>();
    private final Map<String, Map<Integer, Integer>> ports = new ConcurrentHashMap<>();

    /**
     * @param users SASL users and their passwords: PLAIN accepts them, and each enabled SCRAM mechanism gets a credential
     * @param principalMappingRules ssl.principal.mapping.rules, "DEFAULT" for the certificate's whole distinguished name
     * @param maxReauthenticationMs connections.max.reauth.ms (0: SASL sessions never expire)
     * @param authorizer the cluster's ACLs, {@link Authorizer#disabled()} when it asked for none
     * @param oauthBearer how OAUTHBEARER tokens are checked, when {@code saslMechanisms} has it
     * @param brokerKeys a test's own keystore every broker presents, instead of certificates from the cluster's CA;
     *     null for those
     */
    public ClusterSecurity(String clusterName, List<SecurityProtocol> protocols, List<String> saslMechanisms,
                           Map<String, String> users, boolean mutualTls, String principalMappingRules,
                           long maxReauthenticationMs, Authorizer authorizer, OAuthBearerValidator.Settings oauthBearer,
                           BrokerKeyStore brokerKeys) {
        if (protocols.isEmpty()) {
            throw new IllegalArgumentException("A cluster needs at least one listener");
        }
        this.protocols = List.copyOf(protocols);
        this.saslMechanisms = List.copyOf(saslMechanisms);
        this.mutualTls = mutualTls;
        this.maxReauthenticationMs = maxReauthenticationMs;
        this.authorizer = authorizer;
        this.principalMapper = SslPrincipalMapper.fromRules(principalMappingRules);
        this.credentials = new SaslCredentials(saslMechanisms.contains("PLAIN") ? users : Map.of(),
                saslMechanisms.contains("OAUTHBEARER") ? oauthBearer : null);
        for (String mechanism : saslMechanisms) {
            ScramMechanism scram = ScramMechanism.forMechanismName(mechanism);
            if (scram != null) {
                users.forEach((user, password) -> credentials.addScramPassword(user, scram, password));
            }
        }
        boolean tls = protocols.stream().anyMatch(p -> p == SecurityProtocol.SSL || p == SecurityProtocol.SASL_SSL);
        this.ca = tls ? new CertificateAuthority(clusterName + " CA") : null;
        this.brokerKeys = brokerKeys;
    }

    /**
     * Keeps the SCRAM credentials in {@code file} across restarts (see {@link ScramCredentialStore}): a fresh directory
     * is seeded with the users given at start, an existing one replaces them with what it holds.
     */
    public void keepScramCredentialsIn(Path file) {
        ScramCredentialStore.keep(credentials, file);
    }

    /** The one PLAINTEXT listener of a cluster that asked for no security. */
    public static ClusterSecurity plaintext() {
        return new ClusterSecurity("samsa", List.of(SecurityProtocol.PLAINTEXT), List.of(), Map.of(), false, "DEFAULT", 0,
                Authorizer.disabled(), null, null);
    }

    public List<SecurityProtocol> protocols() {
        return protocols;
    }

    public List<String> saslMechanisms() {
        return saslMechanisms;
    }

    public boolean mutualTls() {
        return mutualTls;
    }

    /** The ACLs; used only on the cluster loop. */
    public Authorizer authorizer() {
        return authorizer;
    }

    public SaslCredentials credentials() {
        return credentials;
    }

    /** The listeners of broker {@code brokerId}, in the cluster's order; the same objects after a restart. */
    public List<ListenerSecurity> listeners(int brokerId) {
        return brokerListeners.computeIfAbsent(brokerId, id -> {
            AtomicReference<SSLContext> tls = ca == null ? null : brokerTls.computeIfAbsent(id,
                    broker -> new AtomicReference<>(newServerContext(broker)));
            List<ListenerSecurity> listeners = new ArrayList<>();
            for (SecurityProtocol protocol : protocols) {
                boolean usesTls = protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
                boolean sasl = protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
                listeners.add(new ListenerSecurity(protocol, usesTls ? tls::get : null,
                        mutualTls && usesTls, principalMapper,
                        sasl ? saslMechanisms : List.of(), credentials, maxReauthenticationMs));
            }
            return List.copyOf(listeners);
        });
    }

    private SSLContext newServerContext(int brokerId) {
        return brokerKeys != null ? SslContexts.server(brokerKeys.store(), brokerKeys.password(), ca.certificate())
                : SslContexts.server(ca.issueServer("broker-" + brokerId), ca.certificate());
    }

    /**
     * A fault: broker {@code brokerId} gets a new key and a new certificate from the same CA. New connections are served
     * with it; connections open now keep the session they have, as a broker reloading its keystore does.
     *
     * @throws IllegalStateException when no listener uses TLS, or the brokers present a test's own keystore
     */
    public void rotateCertificate(int brokerId) {
        if (ca == null || brokerKeys != null) {
            throw new IllegalStateException(ca == null ? "This cluster has no TLS listener, so no certificate to rotate"
                    : "The brokers present the test's own keystore; Samsa cannot issue them another certificate");
        }
        listeners(brokerId);
        brokerTls.get(brokerId).set(newServerContext(brokerId));
    }

    /** The certificate clients must trust in PEM (ssl.truststore.certificates); null when no listener uses TLS. */
    public String truststorePem() {
        return ca == null ? null : brokerKeys != null ? CertificateAuthority.certificatePem(brokerKeys.trustAnchor())
                : ca.certificatePem();
    }

    /** What clients must trust: the cluster's CA, or the top of the chain of a test's own broker keystore. */
    public X509Certificate trustAnchor() {
        return ca == null ? null : brokerKeys != null ? brokerKeys.trustAnchor() : ca.certificate();
    }

    /** A client certificate with subject {@code CN=user}, signed by this cluster's CA, the same on every call. */
    public CertificateAuthority.Issued clientIdentity(String user) {
        if (ca == null) {
            throw new IllegalStateException("This cluster has no TLS listener, so no certificate authority");
        }
        return clientIdentities.computeIfAbsent(user, ca::issueClient);
    }

    public void registerPort(SecurityProtocol listener, int brokerId, int port) {
        ports.computeIfAbsent(listener.name, l -> new ConcurrentHashMap<>()).put(brokerId, port);
    }

    /** The port broker {@code brokerId} listens on for {@code listenerName}, or {@code fallback} if it has none. */
    public int port(String listenerName, int brokerId, int fallback) {
        Map<Integer, Integer> byBroker = ports.get(listenerName);
        Integer port = byBroker == null ? null : byBroker.get(brokerId);
        return port == null ? fallback : port;
    }
}
