package dev.samsa.security;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The ACLs on disk beside the cluster's other metadata ({@code metadata/acls.properties}, keys
 * {@code acl.N.resource|pattern|name|principal|host|operation|permission}), so that a cluster started again on the same
 * directory keeps the ACLs its admin clients created. Replaced atomically on every change, as the metadata store does.
 */
final class AclStore {

    private final Path file;

    AclStore(Path file) {
        this.file = file;
    }

    boolean exists() {
        return Files.exists(file);
    }

    List<AclBinding> read() {
        List<AclBinding> acls = new ArrayList<>();
        Properties p = PropertiesFile.read(file);
        for (int i = 0; p.containsKey("acl." + i + ".name"); i++) {
            String k = "acl." + i + ".";
            acls.add(new AclBinding(new ResourcePattern(ResourceType.fromString(p.getProperty(k + "resource")),
                    p.getProperty(k + "name"), PatternType.fromString(p.getProperty(k + "pattern"))),
                    new AccessControlEntry(p.getProperty(k + "principal"), p.getProperty(k + "host"),
                            AclOperation.fromString(p.getProperty(k + "operation")),
                            AclPermissionType.fromString(p.getProperty(k + "permission")))));
        }
        return acls;
    }

    void write(List<AclBinding> acls) {
        Properties p = new Properties();
        for (int i = 0; i < acls.size(); i++) {
            AclBinding b = acls.get(i);
            String k = "acl." + i + ".";
            p.setProperty(k + "resource", b.pattern().resourceType().name());
            p.setProperty(k + "pattern", b.pattern().patternType().name());
            p.setProperty(k + "name", b.pattern().name());
            p.setProperty(k + "principal", b.entry().principal());
            p.setProperty(k + "host", b.entry().host());
            p.setProperty(k + "operation", b.entry().operation().name());
            p.setProperty(k + "permission", b.entry().permissionType().name());
        }
        PropertiesFile.replace(file, p);
    }
}
