/**
 * A cluster's security set-up ({@link dev.samsa.security.ClusterSecurity}): its listeners and what each asks of a client
 * ({@link dev.samsa.security.ListenerSecurity}), the certificate authority it makes in memory and the TLS contexts built
 * from it, a test's own broker keystore, PKCS12 client stores, the SASL users and servers (PLAIN, SCRAM, OAUTHBEARER
 * tokens), and the ACLs with the semantics of Kafka's StandardAuthorizer ({@link dev.samsa.security.Authorizer}). ACLs
 * and SCRAM credentials that clients create are kept in properties files under the data directory's
 * {@code metadata/}.
 *
 * <p>What it may call: nothing internal.
 */
package dev.samsa.security;
