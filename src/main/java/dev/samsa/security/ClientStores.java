package dev.samsa.security;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * PKCS12 truststores and client keystores as files, for client configs of ssl.truststore.type=PKCS12: Kafka takes
 * PEM in the config itself, but PKCS12 only from a file. Written once each, under the cluster's data directory, with
 * one fixed password ({@link #PASSWORD}): they hold test keys.
 */
public final class ClientStores {

    public static final String PASSWORD = "samsa-test-store";

    private final Path directory;
    private final Map<String, Path> written = new ConcurrentHashMap<>();

    public ClientStores(Path directory) {
        this.directory = directory;
    }

    /** A PKCS12 truststore holding {@code trusted}. */
    public Path truststore(X509Certificate trusted) {
        return written.computeIfAbsent("truststore", name -> write(name + ".p12", store -> store.setCertificateEntry("ca", trusted)));
    }

    /** A PKCS12 keystore holding {@code user}'s client key and certificate chain; the key has the store's password. */
    public Path keystore(String user, CertificateAuthority.Issued identity) {
        String file = "keystore-" + user.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + Integer.toHexString(user.hashCode()) + ".p12";
        return written.computeIfAbsent("keystore:" + user, name -> write(file,
                store -> store.setKeyEntry("client", identity.key(), PASSWORD.toCharArray(), identity.chain())));
    }

    private interface Filler {
        void fill(KeyStore store) throws GeneralSecurityException;
    }

    private Path write(String file, Filler filler) {
        try {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            filler.fill(store);
            Files.createDirectories(directory);
            Path target = directory.resolve(file);
            Path partial = directory.resolve(file + ".partial");
            try (OutputStream out = Files.newOutputStream(partial)) {
                store.store(out, PASSWORD.toCharArray());
            }
            // A client reading the file sees a whole store or none.
            return Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the client store " + file + " under " + directory, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("This JDK cannot write a PKCS12 store", e);
        }
    }
}
