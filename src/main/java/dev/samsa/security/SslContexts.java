package dev.samsa.security;

import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** The JDK's TLS, set up from in-memory keys: no keystore file ever touches the disk. */
final class SslContexts {

    private static final char[] NO_PASSWORD = new char[0];

    private SslContexts() {
    }

    /** A server context presenting {@code identity}, trusting client certificates signed by {@code trusted}. */
    static SSLContext server(CertificateAuthority.Issued identity, X509Certificate trusted) {
        try {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry("broker", identity.key(), NO_PASSWORD, identity.chain());
            return server(keys, NO_PASSWORD, trusted);
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("This JDK cannot set up TLS from the cluster's generated keys", e);
        }
    }

    /**
     * A server context presenting the key entry of {@code keys} (a test's own keystore), trusting client certificates
     * signed by {@code trusted}.
     *
     * @throws IllegalArgumentException when the keystore's key cannot be read with {@code password}
     */
    static SSLContext server(KeyStore keys, char[] password, X509Certificate trusted) {
        try {
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, password);
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", trusted);
            TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trust);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
            return context;
        } catch (java.security.UnrecoverableKeyException e) {
            throw new IllegalArgumentException("The broker keystore's key cannot be read with the password given", e);
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalStateException("This JDK cannot set up TLS from the broker's keys", e);
        }
    }
}
