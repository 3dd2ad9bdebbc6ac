package dev.samsa.security;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;

/**
 * A certificate authority made in memory when a cluster starts: an EC P-256 key and a self-signed CA certificate, which
 * signs one certificate per broker (SANs 127.0.0.1 and localhost, so clients' default hostname verification passes)
 * and one per client that asks for mutual TLS. Certificates are X.509 v3 encoded by {@link Der} and signed with
 * SHA256withECDSA: no keytool, no files, no sun.* class.
 *
 * <p>Validity runs from 2000 to the end of 2049 (the last year of UTCTime), so that issuing one needs no clock.
 */
public final class CertificateAuthority {

    private static final String SIGNATURE_ALGORITHM = "SHA256withECDSA";
    private static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
    private static final String COMMON_NAME = "2.5.4.3";
    private static final String BASIC_CONSTRAINTS = "2.5.29.19";
    private static final String KEY_USAGE = "2.5.29.15";
    private static final String SUBJECT_ALT_NAME = "2.5.29.17";
    private static final String EXTENDED_KEY_USAGE = "2.5.29.37";
    private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
    private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
    private static final String NOT_BEFORE = "000101000000Z";
    private static final String NOT_AFTER = "491231235959Z";

    /** A private key and its certificate chain, leaf first. */
    public record Issued(PrivateKey key, X509Certificate certificate, X509Certificate ca) {

        public X509Certificate[] chain() {
            return new X509Certificate[] {certificate, ca};
        }

        /** PKCS#8, unencrypted: what ssl.keystore.key takes when ssl.key.password is not set. */
        public String keyPem() {
            return pem("PRIVATE KEY", key.getEncoded());
        }

        public String chainPem() {
            return certificatePem(certificate) + certificatePem(ca);
        }
    }

    private final SecureRandom random = new SecureRandom();
    private final String name;
    private final KeyPair keys;
    private final X509Certificate certificate;

    /** @param name the CA's common name, which tells a reader of a handshake error whose CA it is */
    public CertificateAuthority(String name) {
        this.name = name;
        this.keys = newKeyPair();
        this.certificate = sign(name, keys, Der.sequence(
                extension(BASIC_CONSTRAINTS, true, Der.sequence(Der.bool(true))),
                // keyCertSign (bit 5) and cRLSign (bit 6): 0b0000_0110 with one unused bit
                extension(KEY_USAGE, true, Der.tlv(0x03, new byte[] {1, 0x06}))));
    }

    public X509Certificate certificate() {
        return certificate;
    }

    /** The CA certificate in PEM: what ssl.truststore.certificates takes. */
    public String certificatePem() {
        return certificatePem(certificate);
    }

    /** A broker's certificate, valid for 127.0.0.1 and localhost. */
    public Issued issueServer(String commonName) {
        byte[] altNames = Der.sequence(
                Der.implicitPrimitive(2, "localhost".getBytes(java.nio.charset.StandardCharsets.US_ASCII)),
                Der.implicitPrimitive(7, new byte[] {127, 0, 0, 1}));
        return issue(commonName, extension(SUBJECT_ALT_NAME, false, altNames), SERVER_AUTH);
    }

    /** A client's certificate for mutual TLS; its subject is {@code CN=commonName}. */
    public Issued issueClient(String commonName) {
        return issue(commonName, null, CLIENT_AUTH);
    }

    private Issued issue(String commonName, byte[] extraExtension, String extendedKeyUsage) {
        KeyPair subject = newKeyPair();
        byte[] usage = extension(EXTENDED_KEY_USAGE, false, Der.sequence(Der.oid(extendedKeyUsage)));
        byte[] extensions = extraExtension == null ? Der.sequence(usage) : Der.sequence(extraExtension, usage);
        return new Issued(subject.getPrivate(), sign(commonName, subject, extensions), certificate);
    }

    /** Builds the TBSCertificate of RFC 5280 4.1 for {@code subject} and signs it with this CA's key. */
    private X509Certificate sign(String commonName, KeyPair subject, byte[] extensions) {
        byte[] algorithm = Der.sequence(Der.oid(ECDSA_WITH_SHA256));
        byte[] tbs = Der.sequence(
                Der.explicit(0, Der.integer(BigInteger.valueOf(2))),
                Der.integer(new BigInteger(63, random).add(BigInteger.ONE)),
                algorithm,
                distinguishedName(name),
                Der.sequence(Der.utcTime(NOT_BEFORE), Der.utcTime(NOT_AFTER)),
                distinguishedName(commonName),
                subject.getPublic().getEncoded(),
                Der.explicit(3, extensions));
        try {
            Signature signature = Signature.getInstance(SIGNATURE_ALGORITHM);
            signature.initSign(keys.getPrivate(), random);
            signature.update(tbs);
            byte[] encoded = Der.sequence(tbs, algorithm, Der.bitString(signature.sign()));
            return (X509Certificate) CertificateFactory.getInstance("X.509")
                    .generateCertificate(new ByteArrayInputStream(encoded));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("This JDK cannot sign a certificate with " + SIGNATURE_ALGORITHM, e);
        }
    }

    private static byte[] distinguishedName(String commonName) {
        return Der.sequence(Der.set(Der.sequence(Der.oid(COMMON_NAME), Der.utf8String(commonName))));
    }

    private static byte[] extension(String oid, boolean critical, byte[] value) {
        return critical
                ? Der.sequence(Der.oid(oid), Der.bool(true), Der.octetString(value))
                : Der.sequence(Der.oid(oid), Der.octetString(value));
    }

    private KeyPair newKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), random);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("This JDK cannot make an EC P-256 key pair", e);
        }
    }

    static String certificatePem(X509Certificate certificate) {
        try {
            return pem("CERTIFICATE", certificate.getEncoded());
        } catch (java.security.cert.CertificateEncodingException e) {
            throw new IllegalStateException("A certificate this CA made cannot be encoded", e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
