package dev.samsa.security;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collections;

/**
 * A test's own keystore for the brokers' TLS listeners, instead of the certificates the cluster's CA issues: every
 * broker presents its key entry. Clients are told to trust the last certificate of that entry's chain (its root when
 * the chain carries one, else the certificate itself).
 */
public record BrokerKeyStore(KeyStore store, char[] password) {

    /** @throws IllegalArgumentException for a keystore without exactly one key entry with an X.509 chain */
    public BrokerKeyStore {
        try {
            long keys = Collections.list(store.aliases()).stream().filter(alias -> isKey(store, alias)).count();
            if (keys != 1) {
                throw new IllegalArgumentException("A broker keystore holds one key entry, this one holds " + keys);
            }
        } catch (KeyStoreException e) {
            throw new IllegalArgumentException("The broker keystore is not loaded", e);
        }
        password = password.clone();
    }

    /**
     * A keystore made of a PEM private key (PKCS#8, unencrypted: {@code -----BEGIN PRIVATE KEY-----}, RSA or EC) and
     * its PEM certificate chain, leaf first, as Kafka's ssl.keystore.key and ssl.keystore.certificate.chain take them.
     *
     * @throws IllegalArgumentException when either cannot be read
     */
    public static BrokerKeyStore fromPem(String privateKeyPem, String certificateChainPem) {
        try {
            Certificate[] chain = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(certificateChainPem.getBytes(StandardCharsets.US_ASCII)))
                    .toArray(new Certificate[0]);
            if (chain.length == 0) {
                throw new IllegalArgumentException("The certificate chain PEM holds no certificate");
            }
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            char[] password = "broker".toCharArray();
            store.setKeyEntry("broker", privateKey(privateKeyPem, chain[0].getPublicKey().getAlgorithm()), password, chain);
            return new BrokerKeyStore(store, password);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("The broker's PEM key and certificate chain cannot be read: " + e.getMessage(), e);
        }
    }

    private static PrivateKey privateKey(String pem, String algorithm) throws GeneralSecurityException {
        String base64 = pem.replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "").replaceAll("\\s", "");
        if (base64.contains("-")) {
            throw new IllegalArgumentException("The private key must be unencrypted PKCS#8 PEM (BEGIN PRIVATE KEY)");
        }
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
    }

    X509Certificate trustAnchor() {
        try {
            for (String alias : Collections.list(store.aliases())) {
                if (isKey(store, alias)) {
                    Certificate[] chain = store.getCertificateChain(alias);
                    return (X509Certificate) chain[chain.length - 1];
                }
            }
        } catch (KeyStoreException e) {
            throw new IllegalStateException("The broker keystore cannot be read", e);
        }
        throw new IllegalStateException("The broker keystore lost its key entry");
    }

    private static boolean isKey(KeyStore store, String alias) {
        try {
            return store.isKeyEntry(alias) && store.getCertificateChain(alias) != null
                    && store.getCertificateChain(alias)[0] instanceof X509Certificate;
        } catch (KeyStoreException e) {
            throw new IllegalArgumentException("The broker keystore is not loaded", e);
        }
    }
}
