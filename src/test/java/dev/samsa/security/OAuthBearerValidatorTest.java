package dev.samsa.security;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.KeyPairGenerator;
import java.util.List;
import javax.security.auth.callback.Callback;
import org.apache.kafka.common.security.auth.SaslExtensions;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerExtensionsValidatorCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallback;
import org.junit.jupiter.api.Test;

/** The token check on its own, against a wall clock the test sets: what Kafka's two validators accept and refuse. */
class OAuthBearerValidatorTest {

    private static final long NOW_MS = 1_800_000_000_000L;
    private static final long NOW = NOW_MS / 1000;

    @Test
    void anUnsecuredTokenGivesItsSubjectScopeAndLifetime() throws Exception {
        OAuthBearerValidatorCallback callback = validate(OAuthBearerValidator.Settings.UNSECURED, Tokens.unsecured(
                "{\"sub\":\"alice\",\"iat\":" + NOW + ",\"exp\":" + (NOW + 60) + ",\"scope\":\"read write\"}"));
        OAuthBearerToken token = callback.token();
        assertThat(token.principalName()).isEqualTo("alice");
        assertThat(token.lifetimeMs()).isEqualTo(NOW_MS + 60_000);
        assertThat(token.startTimeMs()).isEqualTo(NOW_MS);
        assertThat(token.scope()).containsExactlyInAnyOrder("read", "write");
    }

    @Test
    void unsecuredTokensAreRefusedAsKafkasUnsecuredValidatorRefusesThem() throws Exception {
        List<String> refused = List.of(
                "not a token",
                Tokens.unsecured("{\"iat\":" + NOW + ",\"exp\":" + (NOW + 60) + "}"),                    // no sub
                Tokens.unsecured("{\"sub\":\"alice\",\"iat\":" + NOW + "}"),                              // no exp
                Tokens.unsecured("{\"sub\":\"alice\",\"exp\":" + NOW + "}"),                              // exp is now
                Tokens.unsecured("{\"sub\":\"alice\",\"iat\":" + (NOW + 1) + ",\"exp\":" + (NOW + 60) + "}"), // issued later
                Tokens.unsecured("{\"sub\":\"alice\",\"iat\":" + NOW + ",\"exp\":" + NOW + "}"),           // exp <= iat
                Tokens.unsecured("{\"sub\":\"alice\",\"exp\":\"soon\"}"),                                  // not a number
                Tokens.unsecured("{\"sub\":\"alice\",\"exp\":" + (NOW + 60)));                            // not JSON
        for (String token : refused) {
            OAuthBearerValidatorCallback callback = validate(OAuthBearerValidator.Settings.UNSECURED, token);
            assertThat(callback.token()).as(token).isNull();
            assertThat(callback.errorStatus()).as(token).isEqualTo("invalid_token");
        }
    }

    @Test
    void aMissingRequiredScopeIsInsufficientScopeNamingTheRequiredOnes() throws Exception {
        OAuthBearerValidatorCallback callback = validate(new OAuthBearerValidator.Settings(null, List.of("kafka", "admin")),
                Tokens.unsecured("{\"sub\":\"alice\",\"exp\":" + (NOW + 60) + ",\"scope\":[\"kafka\"]}"));
        assertThat(callback.token()).isNull();
        assertThat(callback.errorStatus()).isEqualTo("insufficient_scope");
        assertThat(callback.errorScope()).isEqualTo("[kafka, admin]");
    }

    @Test
    void aSignedTokenMustVerifyWithTheKeyAndCarryIat() throws Exception {
        KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
        rsa.initialize(2048);
        var issuer = rsa.generateKeyPair();
        var settings = new OAuthBearerValidator.Settings(issuer.getPublic(), List.of());
        String claims = "{\"sub\":\"alice\",\"iat\":" + NOW + ",\"exp\":" + (NOW + 60) + "}";
        String signed = Tokens.signed(claims, issuer.getPrivate());
        assertThat(validate(settings, signed).token().principalName()).isEqualTo("alice");
        String tampered = signed.substring(0, signed.indexOf('.') + 1) + Tokens.unsecured(claims.replace("alice", "admin"))
                .split("\\.")[1] + signed.substring(signed.lastIndexOf('.'));
        assertThat(validate(settings, tampered).errorStatus()).isEqualTo("invalid_token");
        assertThat(validate(settings, Tokens.signed("{\"sub\":\"alice\",\"exp\":" + (NOW + 60) + "}", issuer.getPrivate()))
                .errorStatus()).as("no iat").isEqualTo("invalid_token");
        assertThat(validate(settings, Tokens.signed("{\"sub\":\"alice\",\"iat\":" + (NOW - 120) + ",\"exp\":" + (NOW - 29) + "}",
                issuer.getPrivate())).token()).as("expired 29 s ago: within the 30 s skew").isNotNull();
    }

    @Test
    void everyExtensionIsAccepted() throws Exception {
        OAuthBearerValidatorCallback validated = validate(OAuthBearerValidator.Settings.UNSECURED,
                Tokens.unsecured("{\"sub\":\"alice\",\"exp\":" + (NOW + 60) + "}"));
        OAuthBearerExtensionsValidatorCallback extensions = new OAuthBearerExtensionsValidatorCallback(validated.token(),
                new SaslExtensions(java.util.Map.of("traceId", "abc")));
        new OAuthBearerValidator(OAuthBearerValidator.Settings.UNSECURED, () -> NOW_MS).handle(new Callback[] {extensions});
        assertThat(extensions.validatedExtensions()).containsEntry("traceId", "abc");
    }

    private static OAuthBearerValidatorCallback validate(OAuthBearerValidator.Settings settings, String token) throws Exception {
        OAuthBearerValidatorCallback callback = new OAuthBearerValidatorCallback(token);
        new OAuthBearerValidator(settings, () -> NOW_MS).handle(new Callback[] {callback});
        return callback;
    }
}
