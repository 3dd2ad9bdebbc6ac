package dev.samsa.event;

/** A fault: a broker got a new key and certificate from the cluster's CA, which new TLS connections see. */
public record CertificateRotated(int brokerId) implements ClusterEvent {

    @Override
    public String type() {
        return "FaultApplied";
    }

    @Override
    public String details() {
        return "rotated the certificate of broker=" + brokerId;
    }
}
