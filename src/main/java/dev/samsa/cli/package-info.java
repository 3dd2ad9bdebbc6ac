/**
 * The standalone launcher ({@code java -jar samsa-*-standalone.jar}): {@link dev.samsa.cli.Standalone} parses the
 * options, starts a cluster, prints one {@code bootstrap.servers=...} line when it is ready and runs until SIGTERM;
 * {@link dev.samsa.cli.ClientConfigFiles} writes, per SASL user, a Java client properties file and a librdkafka one
 * for clients outside the JVM.
 *
 * <p>It uses only the public API of {@code dev.samsa}, as a test would.
 */
package dev.samsa.cli;
