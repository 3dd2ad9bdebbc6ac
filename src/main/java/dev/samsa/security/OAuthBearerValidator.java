package dev.samsa.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerExtensionsValidatorCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallback;
import org.apache.kafka.common.security.oauthbearer.internals.secured.BasicOAuthBearerToken;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's OAUTHBEARER token check, the callback handler Kafka's own {@code OAuthBearerSaslServer} calls. Two
 * modes, as a Kafka broker is configured:
 * <ul>
 *   <li>no key: Kafka's {@code OAuthBearerUnsecuredValidatorCallbackHandler} (alg {@code none}; {@code sub} required;
 *       {@code exp} required and not passed, {@code iat} not in the future, no clock skew; a required scope);</li>
 *   <li>a key: Kafka's {@code OAuthBearerValidatorCallbackHandler} with a fixed verification key (alg RS256 for an
 *       RSA key, ES256 for an EC one, checked with the JDK's {@link Signature}; {@code none} refused; {@code exp},
 *       {@code iat} and {@code sub} required; {@code exp} and {@code nbf} checked with 30 s of clock skew,
 *       sasl.oauthbearer.clock.skew.seconds' default).</li>
 * </ul>
 * A required scope applies in both modes (Kafka's signed validator has no such option). A refused token gets Kafka's
 * answer: an {@code invalid_token} (or {@code insufficient_scope}) error the SASL server
 * sends as its JSON challenge; why it was refused is logged, never sent. Kafka does that with jose4j and Jackson, which
 * Samsa does not ship, so this class checks what they check with the JDK.
 *
 * <p>Tokens carry epoch seconds, so they are checked against the epoch wall time {@code epochMillis} gives (the
 * cluster loop's), not the cluster clock: a test's manual clock must not make a client's fresh token look stale.
 */
public final class OAuthBearerValidator implements AuthenticateCallbackHandler {

    private static final Logger log = LoggerFactory.getLogger(OAuthBearerValidator.class);
    private static final long SIGNED_CLOCK_SKEW_MS = 30_000;

    /**
     * How a cluster checks tokens.
     *
     * @param key null for Kafka's unsecured tokens, else the key signed tokens must verify with
     * @param requiredScope scope every token must carry (unsecuredValidatorRequiredScope); empty for none
     */
    public record Settings(PublicKey key, List<String> requiredScope) {

        public static final Settings UNSECURED = new Settings(null, List.of());

        public Settings {
            requiredScope = List.copyOf(requiredScope);
            if (key != null && !(key instanceof RSAPublicKey) && !(key instanceof ECPublicKey)) {
                throw new IllegalArgumentException("An OAUTHBEARER validation key is an RSA (RS256) or EC (ES256) public "
                        + "key, not " + key.getAlgorithm());
            }
        }
    }

    private final Settings settings;
    private final LongSupplier epochMillis;

    public OAuthBearerValidator(Settings settings, LongSupplier epochMillis) {
        this.settings = settings;
        this.epochMillis = epochMillis;
    }

    @Override
    public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {
        // configured by its constructor
    }

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback callback : callbacks) {
            if (callback instanceof OAuthBearerValidatorCallback validation) {
                validate(validation);
            } else if (callback instanceof OAuthBearerExtensionsValidatorCallback extensions) {
                // Both of Kafka's validators accept every extension.
                extensions.inputExtensions().map().keySet().forEach(extensions::valid);
            } else {
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    private void validate(OAuthBearerValidatorCallback callback) {
        try {
            callback.token(token(callback.tokenValue()));
        } catch (Refused e) {
            log.info("OAUTHBEARER token refused: {}", e.getMessage());
            if (e.missingScope) {
                callback.error("insufficient_scope", settings.requiredScope().toString(), null);
            } else {
                callback.error("invalid_token", null, null);
            }
        }
    }

    private BasicOAuthBearerToken token(String value) throws Refused {
        Jwt jwt;
        try {
            jwt = Jwt.parse(value);
        } catch (Jwt.MalformedException e) {
            throw new Refused(e.getMessage());
        }
        checkSignature(jwt);
        long now = epochMillis.getAsLong();
        long skewMs = settings.key() == null ? 0 : SIGNED_CLOCK_SKEW_MS;
        Object sub = jwt.claims().get("sub");
        if (!(sub instanceof String subject) || subject.isBlank()) {
            throw new Refused("Required claim missing or not a string: sub");
        }
        Double exp = seconds(jwt, "exp", true);
        boolean signed = settings.key() != null;
        Double iat = seconds(jwt, "iat", signed);
        Double nbf = signed ? seconds(jwt, "nbf", false) : null;
        // Kafka's signed validator (jose4j) requires iat but compares only nbf with the time; the unsecured one iat.
        if (!signed && iat != null && 1000 * iat > now + skewMs) {
            throw new Refused(String.format("The Issued At value (%f seconds) was after the indicated time (%d ms) "
                    + "plus allowable clock skew (%d ms)", iat, now, skewMs));
        }
        if (nbf != null && now + skewMs < 1000 * nbf) {
            throw new Refused(String.format("The token is not valid before %f seconds; now is %d ms, allowable clock "
                    + "skew %d ms", nbf, now, skewMs));
        }
        if (now - skewMs >= 1000 * exp) {
            throw new Refused(String.format("The indicated time (%d ms) minus allowable clock skew (%d ms) was on or "
                    + "after the Expiration Time value (%f seconds)", now, skewMs, exp));
        }
        if (!signed && iat != null && exp <= iat) {
            throw new Refused(String.format("The Expiration Time time (%f seconds) was not after the Issued At time "
                    + "(%f seconds)", exp, iat));
        }
        Set<String> scope = scope(jwt);
        for (String required : settings.requiredScope()) {
            if (!scope.contains(required)) {
                Refused refused = new Refused(String.format("The provided scope (%s) was missing a required scope (%s).  "
                        + "All required scope elements: %s", scope, required, settings.requiredScope()));
                refused.missingScope = true;
                throw refused;
            }
        }
        return new BasicOAuthBearerToken(value, scope, (long) (1000 * exp), subject,
                iat == null ? null : (long) (1000 * iat));
    }

    private void checkSignature(Jwt jwt) throws Refused {
        Object alg = jwt.header().get("alg");
        if (settings.key() == null) {
            if (!"none".equals(alg)) {
                throw new Refused("Unsecured JWS must have 'none' for an algorithm");
            }
            return;
        }
        String expected = settings.key() instanceof RSAPublicKey ? "RS256" : "ES256";
        if (!expected.equals(alg)) {
            throw new Refused("The token's alg is " + alg + "; the validation key verifies " + expected);
        }
        try {
            // A JWS ES256 signature is R and S side by side (IEEE P1363), not the DER the JDK's plain ECDSA expects.
            Signature verifier = Signature.getInstance(expected.equals("RS256") ? "SHA256withRSA" : "SHA256withECDSAinP1363Format");
            verifier.initVerify(settings.key());
            verifier.update(jwt.signingInput().getBytes(StandardCharsets.US_ASCII));
            if (!verifier.verify(jwt.signature())) {
                throw new Refused("The token's signature does not verify with the validation key");
            }
        } catch (GeneralSecurityException e) {
            throw new Refused("The token's signature could not be checked: " + e.getMessage());
        }
    }

    private static Double seconds(Jwt jwt, String claim, boolean required) throws Refused {
        Object value = jwt.claims().get(claim);
        if (value == null) {
            if (required) {
                throw new Refused("Required claim missing: " + claim);
            }
            return null;
        }
        if (!(value instanceof Double seconds)) {
            throw new Refused("The " + claim + " claim is not a number: " + value);
        }
        return seconds;
    }

    /** The scope claim: a space-delimited string (as unsecured tokens carry it) or a list of strings. */
    private static Set<String> scope(Jwt jwt) throws Refused {
        Object value = jwt.claims().get("scope");
        Set<String> scope = new LinkedHashSet<>();
        if (value instanceof String text) {
            Arrays.stream(text.split(" ")).filter(s -> !s.isEmpty()).forEach(scope::add);
        } else if (value instanceof Collection<?> list) {
            for (Object element : list) {
                if (!(element instanceof String s)) {
                    throw new Refused("The scope claim holds a non-string: " + element);
                }
                scope.add(s);
            }
        } else if (value != null) {
            throw new Refused("The scope claim is neither a string nor a list: " + value);
        }
        return scope;
    }

    @Override
    public void close() {
        // nothing held
    }

    private static final class Refused extends Exception {
        private boolean missingScope;

        Refused(String message) {
            super(message, null, false, false);
        }
    }
}
