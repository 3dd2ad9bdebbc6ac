package dev.samsa.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The generated certificates, read back and checked by the JDK's own X.509 parser and PKIX validator. */
class CertificateAuthorityTest {

    private final CertificateAuthority ca = new CertificateAuthority("test CA");

    @Test
    void anObjectIdentifierIsEncodedAsX690Says() {
        // ecdsa-with-SHA256, as every certificate signed with it carries it
        assertThat(HexFormat.of().formatHex(Der.oid("1.2.840.10045.4.3.2"))).isEqualTo("06082a8648ce3d040302");
    }

    @Test
    void aBrokerCertificateNamesLoopbackAndIsValidUnderTheCa() throws Exception {
        X509Certificate broker = ca.issueServer("broker-1").certificate();
        assertThat(broker.getSubjectX500Principal().getName()).isEqualTo("CN=broker-1");
        assertThat(broker.getIssuerX500Principal()).isEqualTo(ca.certificate().getSubjectX500Principal());
        assertThat(broker.getSubjectAlternativeNames()).containsExactlyInAnyOrder(List.of(2, "localhost"), List.of(7, "127.0.0.1"));
        assertThat(broker.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1");
        assertThat(ca.certificate().getBasicConstraints()).as("the CA may sign").isGreaterThanOrEqualTo(0);
        validate(broker, ca);
    }

    @Test
    void aClientCertificateOfAnotherAuthorityDoesNotValidate() throws Exception {
        X509Certificate stranger = new CertificateAuthority("other CA").issueClient("mallory").certificate();
        validate(ca.issueClient("alice").certificate(), ca);
        assertThatThrownBy(() -> validate(stranger, ca)).isInstanceOf(CertPathValidatorException.class);
    }

    @Test
    void thePemFormsParseBack() throws Exception {
        CertificateAuthority.Issued alice = ca.issueClient("alice");
        java.util.Collection<? extends java.security.cert.Certificate> parsed = CertificateFactory.getInstance("X.509")
                .generateCertificates(new java.io.ByteArrayInputStream(alice.chainPem().getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
        assertThat(List.<java.security.cert.Certificate>copyOf(parsed)).containsExactly(alice.certificate(), ca.certificate());
        assertThat(alice.keyPem()).startsWith("-----BEGIN PRIVATE KEY-----\n").endsWith("-----END PRIVATE KEY-----\n");
    }

    private static void validate(X509Certificate certificate, CertificateAuthority ca) throws Exception {
        PKIXParameters parameters = new PKIXParameters(Set.of(new TrustAnchor(ca.certificate(), null)));
        parameters.setRevocationEnabled(false);
        CertPathValidator.getInstance("PKIX").validate(
                CertificateFactory.getInstance("X.509").generateCertPath(List.of(certificate)), parameters);
    }
}
