package dev.samsa.differential;

/**
 * What a differential scenario may ask of the cluster it runs on. Both targets implement it: Samsa
 * ({@link SamsaUnderTest}) and a real Kafka in a JVM of its own ({@link KafkaUnderTest}). Topics, configs and groups are
 * made through the ordinary clients on {@link #bootstrapServers()}, the same on both, so that what differs is the broker.
 * Broker ids start at 1 on both.
 */
interface ClusterUnderTest extends AutoCloseable {

    /** "samsa" or "kafka-4.4.0": the name a difference report shows. */
    String name();

    String bootstrapServers();

    int brokers();

    /** Controlled shutdown of broker {@code id}, as SIGTERM to a Kafka process. */
    void stopBroker(int id);

    /** A process crash of broker {@code id}, as SIGKILL. */
    void killBroker(int id);

    /** Starts a stopped or killed broker again on the same port, and returns once clients can reach it. */
    void restartBroker(int id);

    @Override
    void close();
}
