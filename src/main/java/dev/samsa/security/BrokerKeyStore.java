package dev.samsa.security;

import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
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
