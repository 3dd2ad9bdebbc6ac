package dev.samsa.security;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;
import org.apache.kafka.common.security.oauthbearer.internals.secured.BasicOAuthBearerToken;

/** JWTs a test makes by hand, and a client login handler that hands the broker one of them as it is. */
final class Tokens {

    private Tokens() {
    }

    /** Kafka's unsecured JWS: alg none, no signature. */
    static String unsecured(String claimsJson) {
        return part("{\"alg\":\"none\"}") + "." + part(claimsJson) + ".";
    }

    /** A JWS signed with {@code key}: RS256 for an RSA key, ES256 (R and S side by side) for an EC key. */
    static String signed(String claimsJson, PrivateKey key) throws GeneralSecurityException {
        boolean rsa = key.getAlgorithm().equals("RSA");
        String input = part("{\"alg\":\"" + (rsa ? "RS256" : "ES256") + "\",\"typ\":\"JWT\"}") + "." + part(claimsJson);
        Signature signer = Signature.getInstance(rsa ? "SHA256withRSA" : "SHA256withECDSAinP1363Format");
        signer.initSign(key);
        signer.update(input.getBytes(StandardCharsets.US_ASCII));
        return input + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(signer.sign());
    }

    /** Claims for {@code sub}, issued now and expiring {@code lifetimeSeconds} from now (negative: already expired). */
    static String claims(String sub, long lifetimeSeconds, String extra) {
        long now = System.currentTimeMillis() / 1000;
        long iat = Math.min(now, now + lifetimeSeconds - 1);
        return "{\"sub\":\"" + sub + "\",\"iat\":" + iat + ",\"exp\":" + (now + lifetimeSeconds) + extra + "}";
    }

    private static String part(String json) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    /** The client's JAAS line for {@link FixedTokenLogin}. */
    static Map<String, Object> fixedTokenLogin(String token) {
        return Map.of("sasl.login.callback.handler.class", FixedTokenLogin.class.getName(),
                "sasl.jaas.config", "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required "
                        + "token=\"" + token + "\";");
    }

    /**
     * sasl.login.callback.handler.class: logs in with the JAAS option {@code token} as it is, so the broker alone judges
     * it. The client is told it lives an hour, whatever its exp says.
     */
    public static final class FixedTokenLogin implements AuthenticateCallbackHandler {
        private String token;

        @Override
        public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {
            token = (String) jaasConfigEntries.get(0).getOptions().get("token");
        }

        @Override
        public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
            for (Callback callback : callbacks) {
                if (!(callback instanceof OAuthBearerTokenCallback tokenCallback)) {
                    throw new UnsupportedCallbackException(callback);
                }
                long now = System.currentTimeMillis();
                tokenCallback.token(new BasicOAuthBearerToken(token, java.util.Set.of(), now + 3_600_000, "whoever", now));
            }
        }

        @Override
        public void close() {
        }
    }
}
