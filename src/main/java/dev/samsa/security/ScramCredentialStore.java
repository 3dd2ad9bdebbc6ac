package dev.samsa.security;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramCredentialUtils;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * The SCRAM credentials on disk beside the cluster's other metadata ({@code metadata/scram-credentials.properties},
 * keys {@code scram.N.user|mechanism|credential}, the credential salted and hashed as Kafka's ScramCredentialUtils
 * writes it, never the password), so that users created or changed with AlterUserScramCredentials log in after a
 * restart on the same directory. As {@code kafka-storage format --add-scram}, the builder's users seed a fresh
 * directory only: once the file exists it is the truth, and an admin's deletion stays deleted. Replaced atomically on
 * every change.
 */
final class ScramCredentialStore {

    private final Path file;

    private ScramCredentialStore(Path file) {
        this.file = file;
    }

    /** Loads {@code file} into {@code credentials} (or seeds it from them when it does not exist) and keeps it current. */
    static void keep(SaslCredentials credentials, Path file) {
        ScramCredentialStore store = new ScramCredentialStore(file);
        if (Files.exists(file)) {
            for (String user : credentials.scramUsers()) {
                credentials.scram(user).keySet().forEach(mechanism -> credentials.removeScram(user, mechanism));
            }
            store.read(credentials);
        } else {
            store.write(credentials);
        }
        credentials.onScramChange(() -> store.write(credentials));
    }

    private void read(SaslCredentials credentials) {
        Properties p = PropertiesFile.read(file);
        for (int i = 0; p.containsKey("scram." + i + ".user"); i++) {
            String k = "scram." + i + ".";
            credentials.putScram(p.getProperty(k + "user"), ScramMechanism.forMechanismName(p.getProperty(k + "mechanism")),
                    ScramCredentialUtils.credentialFromString(p.getProperty(k + "credential")));
        }
    }

    private void write(SaslCredentials credentials) {
        Properties p = new Properties();
        int i = 0;
        for (String user : credentials.scramUsers()) {
            for (Map.Entry<ScramMechanism, ScramCredential> e : credentials.scram(user).entrySet()) {
                String k = "scram." + i++ + ".";
                p.setProperty(k + "user", user);
                p.setProperty(k + "mechanism", e.getKey().mechanismName());
                p.setProperty(k + "credential", ScramCredentialUtils.credentialToString(e.getValue()));
            }
        }
        PropertiesFile.replace(file, p);
    }
}
