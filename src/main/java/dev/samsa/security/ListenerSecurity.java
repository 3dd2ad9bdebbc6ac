package dev.samsa.security;

import java.util.List;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;

/**
 * What one listener of one broker asks of a client before its requests reach the broker: TLS (with this broker's
 * certificate, and a client certificate when {@code clientAuthRequired}) and SASL with one of {@code saslMechanisms}.
 * The listener is named after its security protocol, as Kafka names a listener by default.
 *
 * @param serverTls the broker's TLS context as it stands (a certificate rotation replaces it for new connections);
 *     null unless the protocol is SSL or SASL_SSL
 * @param principalMapper turns a client certificate's distinguished name into a user name (ssl.principal.mapping.rules)
 * @param maxReauthenticationMs connections.max.reauth.ms: a SASL session's lifetime, 0 for sessions that never expire
 */
public record ListenerSecurity(SecurityProtocol protocol, Supplier<SSLContext> serverTls, boolean clientAuthRequired,
                               SslPrincipalMapper principalMapper, List<String> saslMechanisms, SaslCredentials credentials,
                               long maxReauthenticationMs) {

    public static final ListenerSecurity PLAINTEXT = new ListenerSecurity(SecurityProtocol.PLAINTEXT, null, false,
            SslPrincipalMapper.fromRules("DEFAULT"), List.of(), new SaslCredentials(java.util.Map.of()), 0);

    public ListenerSecurity {
        if (usesTls(protocol) != (serverTls != null)) {
            throw new IllegalArgumentException(protocol + " listener " + (serverTls == null ? "needs" : "takes no") + " TLS context");
        }
        saslMechanisms = List.copyOf(saslMechanisms);
    }

    public String listenerName() {
        return protocol.name;
    }

    /** The context a new connection's handshake uses; null without TLS. */
    public SSLContext sslContext() {
        return serverTls == null ? null : serverTls.get();
    }

    public boolean usesTls() {
        return serverTls != null;
    }

    public boolean usesSasl() {
        return protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
    }

    private static boolean usesTls(SecurityProtocol protocol) {
        return protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL;
    }
}
