package dev.samsa.cluster;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * The client quotas of the cluster, as Kafka's controller keeps them ({@code ClientQuotaControlManager}) and its
 * brokers describe them ({@code ClientQuotasImage.describe}): per entity (a user, a client id, both, or an IP; a null
 * name is the entity's default) a value per quota key, checked as Kafka checks an alteration. Stored and described,
 * not enforced: no request is throttled. Kept in memory, as long as the cluster runs. Owned by the cluster loop.
 */
public final class ClientQuotas {

    public static final String USER = "user";
    public static final String CLIENT_ID = "client-id";
    public static final String IP = "ip";

    /** Kafka's QuotaConfig keys, with whether each takes whole numbers only. */
    private static final Map<String, Boolean> USER_AND_CLIENT_KEYS = Map.of("producer_byte_rate", true,
            "consumer_byte_rate", true, "request_percentage", false, "controller_mutation_rate", false);
    private static final Map<String, Boolean> IP_KEYS = Map.of("connection_creation_rate", true);

    /** One component of a describe filter: Kafka's match types 0 (exact), 1 (default) and 2 (any name). */
    public record Component(String entityType, byte matchType, String match) {
    }

    private final Map<Map<String, String>, Map<String, Double>> quotas = new LinkedHashMap<>();

    /**
     * Applies one entity's alteration, all or nothing: a null value removes the key.
     *
     * @param entity entity type to name (null for the default)
     * @throws InvalidRequestException with Kafka's message for an invalid entity, key or value
     */
    public void alter(Map<String, String> entity, Map<String, Double> values, boolean validateOnly) {
        Map<String, Boolean> keys = keysFor(entity);
        for (Map.Entry<String, Double> e : values.entrySet()) {
            if (e.getValue() != null) {
                throwIfInvalid(keys, e.getKey(), e.getValue());
            }
        }
        if (validateOnly) {
            return;
        }
        // A default entity names its type with null, which Map.copyOf refuses.
        Map<String, Double> current = quotas.computeIfAbsent(Collections.unmodifiableMap(new LinkedHashMap<>(entity)),
                k -> new TreeMap<>());
        values.forEach((key, value) -> {
            if (value == null) {
                current.remove(key);
            } else {
                current.put(key, value);
            }
        });
        if (current.isEmpty()) {
            quotas.remove(entity);
        }
    }

    /**
     * The entities that match the filter, with their values.
     *
     * @throws InvalidRequestException or UnsupportedVersionException for a filter Kafka refuses, with its message
     */
    public Map<Map<String, String>, Map<String, Double>> describe(List<Component> filter, boolean strict) {
        Map<String, String> exact = new LinkedHashMap<>();
        Set<String> any = new java.util.HashSet<>();
        for (Component c : filter) {
            if (c.entityType().isEmpty()) {
                throw new InvalidRequestException("Invalid empty entity type.");
            }
            if (exact.containsKey(c.entityType()) || any.contains(c.entityType())) {
                throw new InvalidRequestException("Entity type " + c.entityType() + " cannot appear more than once in the filter.");
            }
            if (!Set.of(IP, USER, CLIENT_ID).contains(c.entityType())) {
                throw new UnsupportedVersionException("Unsupported entity type " + c.entityType());
            }
            switch (c.matchType()) {
                case 0 -> {
                    if (c.match() == null) {
                        throw new InvalidRequestException("Request specified MATCH_TYPE_EXACT, but set match string to null.");
                    }
                    exact.put(c.entityType(), c.match());
                }
                case 1 -> {
                    if (c.match() != null) {
                        throw new InvalidRequestException("Request specified MATCH_TYPE_DEFAULT, but also specified a match string.");
                    }
                    exact.put(c.entityType(), null);
                }
                case 2 -> {
                    if (c.match() != null) {
                        throw new InvalidRequestException("Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.");
                    }
                    any.add(c.entityType());
                }
                default -> throw new InvalidRequestException("Unknown match type " + c.matchType());
            }
        }
        boolean ip = exact.containsKey(IP) || any.contains(IP);
        boolean userOrClient = exact.containsKey(USER) || any.contains(USER) || exact.containsKey(CLIENT_ID) || any.contains(CLIENT_ID);
        if (ip && userOrClient) {
            throw new InvalidRequestException("Invalid entity filter component combination. IP filter component should "
                    + "not be used with user or clientId filter component.");
        }
        Map<Map<String, String>, Map<String, Double>> matching = new LinkedHashMap<>();
        quotas.forEach((entity, values) -> {
            if (matches(entity, exact, any, strict)) {
                matching.put(entity, Map.copyOf(values));
            }
        });
        return matching;
    }

    private static boolean matches(Map<String, String> entity, Map<String, String> exact, Set<String> any, boolean strict) {
        if (strict && entity.size() != exact.size() + any.size()) {
            return false;
        }
        for (Map.Entry<String, String> e : exact.entrySet()) {
            if (!entity.containsKey(e.getKey()) || !Objects.equals(entity.get(e.getKey()), e.getValue())) {
                return false;
            }
        }
        return entity.keySet().containsAll(any);
    }

    /** Kafka's validateEntity and configKeysForEntityType: which keys the entity's combination of types allows. */
    private static Map<String, Boolean> keysFor(Map<String, String> entity) {
        if (entity.isEmpty()) {
            throw new InvalidRequestException("Invalid empty client quota entity");
        }
        for (Map.Entry<String, String> e : entity.entrySet()) {
            if (!Set.of(USER, CLIENT_ID, IP).contains(e.getKey())) {
                throw new InvalidRequestException("Unhandled client quota entity type: " + e.getKey());
            }
            if (e.getValue() != null && e.getValue().isEmpty()) {
                throw new InvalidRequestException("Empty " + e.getKey() + " not supported");
            }
        }
        if (!entity.containsKey(IP)) {
            return USER_AND_CLIENT_KEYS;
        }
        if (entity.size() > 1) {
            throw new InvalidRequestException("Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId");
        }
        String ip = entity.get(IP);
        if (ip != null) {
            try {
                InetAddress.getByName(ip);
            } catch (UnknownHostException e) {
                throw new InvalidRequestException(ip + " is not a valid IP or resolvable host.");
            }
        }
        return IP_KEYS;
    }

    /** Kafka's validateQuotaKeyValue: a known key, above 0, whole where the key is a SHORT, INT or LONG. */
    private static void throwIfInvalid(Map<String, Boolean> keys, String key, double value) {
        Boolean integral = keys.get(key);
        if (integral == null) {
            throw new InvalidRequestException("Invalid configuration key " + key);
        }
        if (value <= 0.0) {
            throw new InvalidRequestException("Quota " + key + " must be greater than 0");
        }
        if (integral) {
            if (key.equals("connection_creation_rate") && value > Integer.MAX_VALUE) {
                throw new InvalidRequestException("Proposed value for " + key + " is too large for an INT.");
            }
            if (Math.abs(value % 1.0) > 1e-6) {
                throw new InvalidRequestException(key + " cannot be a fractional value.");
            }
        }
    }
}
