package dev.samsa.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.samsa.KafkaCluster;
import dev.samsa.Security;
import dev.samsa.Security.Protocol;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** PKCS12 client stores as files, and a broker keystore the test brings instead of the cluster's own CA. */
class TlsStoresTest {

    @Test
    void clientsConnectWithPkcs12TruststoreAndKeystoreFiles() throws Exception {
        try (KafkaCluster cluster = KafkaCluster.builder()
                .security(Security.listeners(Protocol.SSL).mutualTls().clientStores(Security.StoreType.PKCS12))
                .topic("orders", 1, 1)
                .start()) {
            Map<String, Object> config = cluster.producerConfig("carol");
            assertThat(config).containsEntry("ssl.truststore.type", "PKCS12").containsEntry("ssl.keystore.type", "PKCS12")
                    .doesNotContainKey("ssl.truststore.certificates").containsKey("ssl.truststore.password");
            Path truststore = Path.of((String) config.get("ssl.truststore.location"));
            assertThat(truststore).startsWith(cluster.dataDirectory()).isRegularFile();
            KeyStore loaded = KeyStore.getInstance("PKCS12");
            try (var in = Files.newInputStream(truststore)) {
                loaded.load(in, ((String) config.get("ssl.truststore.password")).toCharArray());
            }
            assertThat(((X509Certificate) loaded.getCertificate("ca")).getSubjectX500Principal().getName()).endsWith(" CA");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>("orders", "k", "v")).get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void brokersPresentATestsOwnKeystore() throws Exception {
        CertificateAuthority own = new CertificateAuthority("The test's own CA");
        CertificateAuthority.Issued identity = own.issueServer("my-broker");
        KeyStore keyStore = KeyStore.getInstance("PKCS12");
        keyStore.load(null, null);
        keyStore.setKeyEntry("broker", identity.key(), "key-secret".toCharArray(), identity.chain());
        try (KafkaCluster cluster = KafkaCluster.builder()
                .security(Security.listeners(Protocol.SASL_SSL).user("alice", "secret").brokerKeyStore(keyStore, "key-secret"))
                .start()) {
            Map<String, Object> config = cluster.adminConfig("alice");
            assertThat(config).containsEntry("ssl.truststore.certificates", own.certificatePem());
            X509Certificate served = SecurityFaultsTest.servedCertificate(cluster.broker(1).address(Protocol.SASL_SSL),
                    own.certificatePem());
            assertThat(served).isEqualTo(identity.certificate());
            try (Admin admin = Admin.create(config)) {
                admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
            }
            assertThatThrownBy(() -> cluster.faults().rotateCertificate(1)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("own keystore");
        }
    }

    @Test
    void brokersPresentATestsOwnPemKeyAndChain() throws Exception {
        CertificateAuthority own = new CertificateAuthority("The test's PEM CA");
        CertificateAuthority.Issued identity = own.issueServer("my-broker");
        try (KafkaCluster cluster = KafkaCluster.builder()
                .security(Security.listeners(Protocol.SSL).brokerCertificate(identity.keyPem(), identity.chainPem()))
                .start()) {
            assertThat(SecurityFaultsTest.servedCertificate(cluster.broker(1).address(Protocol.SSL), own.certificatePem()))
                    .isEqualTo(identity.certificate());
            try (Admin admin = Admin.create(cluster.adminConfig())) {
                admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
            }
        }
        assertThatThrownBy(() -> Security.listeners(Protocol.SSL).brokerCertificate("not a key", identity.chainPem()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aKeystoreWithoutOneKeyEntryIsRefusedAtOnce() throws Exception {
        KeyStore empty = KeyStore.getInstance("PKCS12");
        empty.load(null, null);
        assertThatThrownBy(() -> Security.listeners(Protocol.SSL).brokerKeyStore(empty, "x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one key entry, this one holds 0");
    }
}
