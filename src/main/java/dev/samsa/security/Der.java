package dev.samsa.security;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

/**
 * The few ASN.1 DER encodings an X.509 v3 certificate needs (ITU-T X.690): each method returns one complete
 * tag-length-value, so a certificate reads as nested calls in the order of RFC 5280's structures.
 */
final class Der {

    private Der() {
    }

    static byte[] sequence(byte[]... elements) {
        return tlv(0x30, concat(elements));
    }

    static byte[] set(byte[]... elements) {
        return tlv(0x31, concat(elements));
    }

    static byte[] integer(BigInteger value) {
        return tlv(0x02, value.toByteArray());
    }

    static byte[] bool(boolean value) {
        return tlv(0x01, new byte[] {(byte) (value ? 0xFF : 0x00)});
    }

    static byte[] octetString(byte[] value) {
        return tlv(0x04, value);
    }

    /** A BIT STRING of whole bytes: no unused bits. */
    static byte[] bitString(byte[] value) {
        return tlv(0x03, concat(new byte[] {0}, value));
    }

    static byte[] utf8String(String value) {
        return tlv(0x0C, value.getBytes(StandardCharsets.UTF_8));
    }

    /** UTCTime "YYMMDDhhmmssZ", years 1950 to 2049. */
    static byte[] utcTime(String value) {
        return tlv(0x17, value.getBytes(StandardCharsets.US_ASCII));
    }

    static byte[] oid(String dotted) {
        String[] parts = dotted.split("\\.");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(Integer.parseInt(parts[0]) * 40 + Integer.parseInt(parts[1]));
        for (int i = 2; i < parts.length; i++) {
            long arc = Long.parseLong(parts[i]);
            // base 128, most significant group first, every byte but the last with its high bit set
            int groups = 1;
            for (long rest = arc >>> 7; rest != 0; rest >>>= 7) {
                groups++;
            }
            for (int g = groups - 1; g >= 0; g--) {
                out.write((int) ((arc >>> (7 * g)) & 0x7F) | (g == 0 ? 0 : 0x80));
            }
        }
        return tlv(0x06, out.toByteArray());
    }

    /** [tag] EXPLICIT: a constructed context-specific wrapper around one complete element. */
    static byte[] explicit(int tag, byte[] element) {
        return tlv(0xA0 | tag, element);
    }

    /** [tag] IMPLICIT of a primitive type: the content octets under a context-specific tag. */
    static byte[] implicitPrimitive(int tag, byte[] content) {
        return tlv(0x80 | tag, content);
    }

    static byte[] tlv(int tag, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
        out.write(tag);
        int length = content.length;
        if (length < 0x80) {
            out.write(length);
        } else {
            int bytes = (32 - Integer.numberOfLeadingZeros(length) + 7) / 8;
            out.write(0x80 | bytes);
            for (int i = bytes - 1; i >= 0; i--) {
                out.write(length >>> (8 * i));
            }
        }
        out.writeBytes(content);
        return out.toByteArray();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
