package dev.samsa.security;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JWS in compact serialization ({@code header.payload.signature}, each base64url), with its header and claims read
 * as JSON. Kafka reads them with Jackson, which is not on Samsa's runtime classpath; JWT headers and claims are small
 * JSON objects, so a small reader does: objects, arrays, strings, numbers (as Double), booleans and null.
 *
 * @param signingInput what the signature covers: {@code header.payload} as sent
 */
record Jwt(Map<String, Object> header, Map<String, Object> claims, String signingInput, byte[] signature) {

    /** Why a token could not be read; the validator answers invalid_token. */
    static final class MalformedException extends Exception {
        MalformedException(String message) {
            super(message);
        }
    }

    static Jwt parse(String compact) throws MalformedException {
        // -1 keeps a trailing empty part: an unsecured JWS ends with '.'
        String[] parts = compact.split("\\.", -1);
        if (parts.length != 3) {
            throw new MalformedException("A JWS in compact serialization has 3 parts, this one has " + parts.length);
        }
        try {
            Base64.Decoder decoder = Base64.getUrlDecoder();
            return new Jwt(object(new String(decoder.decode(parts[0]), StandardCharsets.UTF_8), "header"),
                    object(new String(decoder.decode(parts[1]), StandardCharsets.UTF_8), "claims"),
                    parts[0] + "." + parts[1], decoder.decode(parts[2]));
        } catch (IllegalArgumentException e) {
            throw new MalformedException("Invalid base64url in the token: " + e.getMessage());
        }
    }

    private static Map<String, Object> object(String json, String what) throws MalformedException {
        Reader reader = new Reader(json);
        try {
            reader.skipSpace();
            Object value = reader.value();
            reader.skipSpace();
            if (!(value instanceof Map<?, ?>) || reader.position < json.length()) {
                throw new MalformedException("The token's " + what + " is not one JSON object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> map = (Map<String, Object>) value;
            return map;
        } catch (IndexOutOfBoundsException | NumberFormatException e) {
            throw new MalformedException("The token's " + what + " is not valid JSON");
        }
    }

    private static final class Reader {
        private final String text;
        private int position;

        Reader(String text) {
            this.text = text;
        }

        Object value() throws MalformedException {
            char c = text.charAt(position);
            switch (c) {
                case '{':
                    return object();
                case '[':
                    return array();
                case '"':
                    return string();
                default:
                    if (text.startsWith("true", position)) {
                        position += 4;
                        return Boolean.TRUE;
                    }
                    if (text.startsWith("false", position)) {
                        position += 5;
                        return Boolean.FALSE;
                    }
                    if (text.startsWith("null", position)) {
                        position += 4;
                        return null;
                    }
                    return number();
            }
        }

        private Map<String, Object> object() throws MalformedException {
            Map<String, Object> map = new LinkedHashMap<>();
            position++;
            skipSpace();
            if (text.charAt(position) == '}') {
                position++;
                return map;
            }
            while (true) {
                skipSpace();
                String name = string();
                skipSpace();
                expect(':');
                skipSpace();
                map.put(name, value());
                skipSpace();
                if (text.charAt(position) == '}') {
                    position++;
                    return map;
                }
                expect(',');
            }
        }

        private List<Object> array() throws MalformedException {
            List<Object> list = new ArrayList<>();
            position++;
            skipSpace();
            if (text.charAt(position) == ']') {
                position++;
                return list;
            }
            while (true) {
                skipSpace();
                list.add(value());
                skipSpace();
                if (text.charAt(position) == ']') {
                    position++;
                    return list;
                }
                expect(',');
            }
        }

        private String string() throws MalformedException {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                char c = text.charAt(position++);
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                char escaped = text.charAt(position++);
                switch (escaped) {
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'u' -> {
                        out.append((char) Integer.parseInt(text.substring(position, position + 4), 16));
                        position += 4;
                    }
                    default -> out.append(escaped);
                }
            }
        }

        private Double number() throws MalformedException {
            int start = position;
            while (position < text.length() && "+-0123456789.eE".indexOf(text.charAt(position)) >= 0) {
                position++;
            }
            if (start == position) {
                throw new MalformedException("Unexpected '" + text.charAt(position) + "' in the token's JSON");
            }
            return Double.valueOf(text.substring(start, position));
        }

        private void expect(char c) throws MalformedException {
            if (text.charAt(position) != c) {
                throw new MalformedException("Expected '" + c + "' at " + position + " in the token's JSON");
            }
            position++;
        }

        void skipSpace() {
            while (position < text.length() && Character.isWhitespace(text.charAt(position))) {
                position++;
            }
        }
    }
}
