package dev.samsa.security;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * ACL bindings and the decisions made from them, with the semantics of Kafka's StandardAuthorizer: a binding matches
 * a resource by LITERAL name, the wildcard name {@code *}, or a PREFIXED name; a principal by name or {@code User:*};
 * a host by address or {@code *}. A matching DENY (of the operation itself or ALL; a DENY implies nothing) wins over
 * any ALLOW; ALLOW of READ, WRITE, DELETE or ALTER implies DESCRIBE, and ALTER_CONFIGS implies DESCRIBE_CONFIGS.
 * Super users may do everything; a resource no binding of any principal, host or operation matches is allowed only
 * with allow.everyone.if.no.acl.found. Checked line by line against Kafka 4.1's StandardAuthorizerData
 * (findAclRule, checkSection, findResult) and Authorizer.authorizeByResourceType. A disabled authorizer (the cluster
 * asked for no ACLs) allows everything, so a cluster without ACLs behaves as one without an authorizer. Runs on the
 * cluster loop.
 */
public final class Authorizer {

    /** How many distinct denials are reported between two ACL changes. */
    static final int MAX_REPORTED_DENIALS = 1000;

    private static final Set<AclOperation> IMPLY_DESCRIBE =
            Set.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER);

    private final boolean enabled;
    private final Set<String> superUsers;
    private final boolean allowEveryoneIfNoAclFound;
    private final List<AclBinding> bindings = new ArrayList<>();
    private final AclStore store;
    private final Set<List<String>> reportedDenials = new HashSet<>();

    /** An authorizer whose ACLs live in memory only. */
    public Authorizer(boolean enabled, Collection<String> superUsers, boolean allowEveryoneIfNoAclFound,
                      Collection<AclBinding> initial) {
        this(enabled, superUsers, allowEveryoneIfNoAclFound, initial, null);
    }

    /**
     * @param superUsers principals as super.users names them, e.g. {@code User:admin}
     * @param initial the ACLs of a fresh directory: they seed {@code file} when it does not exist yet, and are ignored
     *                when it does, so that ACLs an admin deleted stay deleted after a restart (as {@code kafka-storage
     *                format} seeds a new metadata log, and the log is the truth afterwards)
     * @param file where the ACLs are kept across restarts (null: in memory only)
     */
    public Authorizer(boolean enabled, Collection<String> superUsers, boolean allowEveryoneIfNoAclFound,
                      Collection<AclBinding> initial, Path file) {
        this.enabled = enabled;
        this.superUsers = Set.copyOf(superUsers);
        this.allowEveryoneIfNoAclFound = allowEveryoneIfNoAclFound;
        this.store = file == null ? null : new AclStore(file);
        if (store != null && store.exists()) {
            bindings.addAll(store.read());
        } else {
            initial.forEach(this::add);
            save();
        }
    }

    /** No authorizer: every request is allowed, and the ACL APIs answer SECURITY_DISABLED. */
    public static Authorizer disabled() {
        return new Authorizer(false, List.of(), true, List.of());
    }

    public boolean enabled() {
        return enabled;
    }

    /** Whether {@code principal} connecting from {@code host} may do {@code operation} on the named resource. */
    public boolean authorize(KafkaPrincipal principal, String host, AclOperation operation, ResourceType type, String name) {
        if (!enabled || superUsers.contains(principal.toString())) {
            return true;
        }
        boolean anyAcl = false;
        boolean allowed = false;
        for (AclBinding b : bindings) {
            if (!matchesResource(b.pattern(), type, name)) {
                continue;
            }
            anyAcl = true;
            AccessControlEntry e = b.entry();
            if (!matchesPrincipal(e, principal) || !matchesHost(e, host)) {
                continue;
            }
            if (e.permissionType() == AclPermissionType.DENY) {
                if (e.operation() == AclOperation.ALL || e.operation() == operation) {
                    return false;
                }
            } else if (allows(e.operation(), operation)) {
                allowed = true;
            }
        }
        return allowed || !anyAcl && allowEveryoneIfNoAclFound;
    }

    /**
     * Whether the principal may do {@code operation} on some resource of the type, as Kafka's
     * Authorizer.authorizeByResourceType decides it (an idempotent producer with WRITE on any topic gets a producer id):
     * first a check of a made-up literal name, so super users and allow.everyone.if.no.acl.found pass; then an ALLOW
     * for exactly this operation (or ALL; implied operations do not count) on a name that no DENY of the same literal
     * name, of a prefix of it, or of {@code *} cancels.
     */
    public boolean authorizeAny(KafkaPrincipal principal, String host, AclOperation operation, ResourceType type) {
        if (authorize(principal, host, operation, type, "hardcode")) {
            return true;
        }
        Set<String> deniedLiterals = new HashSet<>();
        Set<String> deniedPrefixes = new HashSet<>();
        List<ResourcePattern> allowed = new ArrayList<>();
        for (AclBinding b : bindings) {
            AccessControlEntry e = b.entry();
            if (b.pattern().resourceType() != type || !matchesPrincipal(e, principal) || !matchesHost(e, host)
                    || e.operation() != operation && e.operation() != AclOperation.ALL) {
                continue;
            }
            boolean literal = b.pattern().patternType() == PatternType.LITERAL;
            if (e.permissionType() == AclPermissionType.DENY) {
                if (literal && b.pattern().name().equals(ResourcePattern.WILDCARD_RESOURCE)) {
                    return false;
                }
                (literal ? deniedLiterals : deniedPrefixes).add(b.pattern().name());
            } else {
                allowed.add(b.pattern());
            }
        }
        for (ResourcePattern p : allowed) {
            if (p.patternType() == PatternType.LITERAL && p.name().equals(ResourcePattern.WILDCARD_RESOURCE)) {
                return true;
            }
        }
        for (ResourcePattern p : allowed) {
            boolean literalDenied = p.patternType() == PatternType.LITERAL && deniedLiterals.contains(p.name());
            boolean prefixDenied = false;
            for (int end = 1; end <= p.name().length() && !prefixDenied; end++) {
                prefixDenied = deniedPrefixes.contains(p.name().substring(0, end));
            }
            if (!literalDenied && !prefixDenied) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a denial is worth reporting: true the first time each key (principal, operation, resource, API) is
     * denied since the ACLs last changed, and never once {@value #MAX_REPORTED_DENIALS} keys have been, so that a
     * client denied in a retry loop is reported once.
     */
    public boolean firstDenial(List<String> key) {
        return reportedDenials.size() < MAX_REPORTED_DENIALS && reportedDenials.add(key);
    }

    /** Adds a binding; adding one already present changes nothing. */
    public void add(AclBinding binding) {
        if (!bindings.contains(binding)) {
            bindings.add(binding);
            save();
        }
    }

    /** The bindings the filter matches, in the order they were added. */
    public List<AclBinding> describe(AclBindingFilter filter) {
        return bindings.stream().filter(filter::matches).toList();
    }

    /** Removes and returns the bindings the filter matches. */
    public List<AclBinding> delete(AclBindingFilter filter) {
        List<AclBinding> removed = describe(filter);
        if (bindings.removeAll(removed)) {
            save();
        }
        return removed;
    }

    private void save() {
        reportedDenials.clear();
        if (store != null) {
            store.write(bindings);
        }
    }

    private static boolean allows(AclOperation granted, AclOperation requested) {
        return granted == AclOperation.ALL || granted == requested
                || requested == AclOperation.DESCRIBE && IMPLY_DESCRIBE.contains(granted)
                || requested == AclOperation.DESCRIBE_CONFIGS && granted == AclOperation.ALTER_CONFIGS;
    }

    private static boolean matchesResource(ResourcePattern p, ResourceType type, String name) {
        if (p.resourceType() != type) {
            return false;
        }
        if (p.patternType() == PatternType.PREFIXED) {
            return name.startsWith(p.name());
        }
        return p.name().equals(ResourcePattern.WILDCARD_RESOURCE) || p.name().equals(name);
    }

    private static boolean matchesPrincipal(AccessControlEntry e, KafkaPrincipal principal) {
        return e.principal().equals("User:*") || e.principal().equals(principal.toString());
    }

    private static boolean matchesHost(AccessControlEntry e, String host) {
        return e.host().equals("*") || e.host().equals(host);
    }
}
