package dev.samsa.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule;
import org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerSaslServer;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.ScramCredentialCallback;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslServer;
import org.apache.kafka.common.security.token.delegation.internals.DelegationTokenCredentialCallback;

/**
 * The users a cluster knows and the SASL servers that check them: PLAIN passwords as a broker's JAAS
 * {@code user_<name>="<password>"} entries give them (fixed at start), and SCRAM credentials as the cluster metadata
 * keeps them (salted, changed by AlterUserScramCredentials on the cluster loop), and for OAUTHBEARER how tokens are
 * checked. The exchanges themselves are Kafka's own {@link PlainSaslServer}, {@link ScramSaslServer} and
 * {@link OAuthBearerSaslServer}, so every step and error message is Kafka's.
 *
 * <p>Connections read credentials on their own threads while the loop changes them, hence the concurrent maps (Kafka's
 * CredentialCache is one too); a credential is replaced whole, never changed in place.
 */
public final class SaslCredentials {

    /** Kafka's minimum, which is also what kafka-configs uses by default. */
    public static final int DEFAULT_ITERATIONS = 4096;

    private final Map<String, String> plainPasswords;
    private final OAuthBearerValidator.Settings oauthBearer;
    private final ConcurrentMap<String, ConcurrentMap<ScramMechanism, ScramCredential>> scram = new ConcurrentHashMap<>();
    private volatile Runnable scramChanged = () -> { };

    public SaslCredentials(Map<String, String> plainPasswords) {
        this(plainPasswords, null);
    }

    /** @param oauthBearer how OAUTHBEARER tokens are checked; null when the mechanism is not enabled */
    public SaslCredentials(Map<String, String> plainPasswords, OAuthBearerValidator.Settings oauthBearer) {
        this.plainPasswords = Map.copyOf(plainPasswords);
        this.oauthBearer = oauthBearer;
    }

    /** A SCRAM credential computed from a password, as kafka-configs --add-config 'SCRAM-SHA-256=[password=...]' does. */
    public void addScramPassword(String user, ScramMechanism mechanism, String password) {
        try {
            putScram(user, mechanism, new ScramFormatter(mechanism).generateCredential(password, DEFAULT_ITERATIONS));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("This JDK has no " + mechanism.hashAlgorithm() + " for " + mechanism, e);
        }
    }

    public void putScram(String user, ScramMechanism mechanism, ScramCredential credential) {
        scram.computeIfAbsent(user, u -> new ConcurrentHashMap<>()).put(mechanism, credential);
        scramChanged.run();
    }

    /** Runs {@code listener} after each SCRAM change, on the thread that made it, so the credentials can be kept on disk. */
    public void onScramChange(Runnable listener) {
        this.scramChanged = listener;
    }

    /** @return whether there was such a credential */
    public boolean removeScram(String user, ScramMechanism mechanism) {
        Map<ScramMechanism, ScramCredential> credentials = scram.get(user);
        boolean removed = credentials != null && credentials.remove(mechanism) != null;
        if (credentials != null && credentials.isEmpty()) {
            scram.remove(user, credentials);
        }
        if (removed) {
            scramChanged.run();
        }
        return removed;
    }

    /** The user's SCRAM credentials by mechanism; empty for a user with none. */
    public Map<ScramMechanism, ScramCredential> scram(String user) {
        Map<ScramMechanism, ScramCredential> credentials = scram.get(user);
        return credentials == null ? Map.of() : Map.copyOf(credentials);
    }

    public Set<String> scramUsers() {
        return new TreeSet<>(scram.keySet());
    }

    /**
     * Kafka's SASL server for {@code mechanism}, checking against these credentials.
     *
     * @param epochMillis the wall time OAUTHBEARER tokens' expiry is checked against
     * @throws IllegalArgumentException for a mechanism other than PLAIN, SCRAM-SHA-256/512 and an enabled OAUTHBEARER
     */
    public SaslServer newServer(String mechanism, LongSupplier epochMillis) {
        if (mechanism.equals("PLAIN")) {
            return new PlainSaslServer(this::handle);
        }
        if (mechanism.equals(OAuthBearerLoginModule.OAUTHBEARER_MECHANISM) && oauthBearer != null) {
            return new OAuthBearerSaslServer(new OAuthBearerValidator(oauthBearer, epochMillis));
        }
        ScramMechanism scramMechanism = ScramMechanism.forMechanismName(mechanism);
        if (scramMechanism == null) {
            throw new IllegalArgumentException("Samsa serves SASL PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER (when enabled), not " + mechanism);
        }
        try {
            return new ScramSaslServer(scramMechanism, Map.of(), callbacks -> handle(callbacks, scramMechanism));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("This JDK has no " + scramMechanism.hashAlgorithm(), e);
        }
    }

    private void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        handle(callbacks, null);
    }

    /** Kafka's PlainServerCallbackHandler and ScramServerCallbackHandler in one; there are no delegation tokens. */
    private void handle(Callback[] callbacks, ScramMechanism mechanism) throws UnsupportedCallbackException {
        String user = null;
        for (Callback callback : callbacks) {
            if (callback instanceof NameCallback name) {
                user = name.getDefaultName();
            } else if (callback instanceof PlainAuthenticateCallback plain) {
                plain.authenticated(passwordMatches(user, plain.password()));
            } else if (callback instanceof DelegationTokenCredentialCallback) {
                // no token has an owner: ScramSaslServer answers "Invalid tokenId"
                continue;
            } else if (callback instanceof ScramCredentialCallback credential) {
                credential.scramCredential(user == null ? null : scram(user).get(mechanism));
            } else {
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    private boolean passwordMatches(String user, char[] password) {
        String expected = user == null ? null : plainPasswords.get(user);
        return expected != null && MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8),
                new String(password).getBytes(StandardCharsets.UTF_8));
    }
}
