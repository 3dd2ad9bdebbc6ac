package dev.samsa.group.classic;

import java.util.Arrays;

/** One protocol a member supports ("range", "cooperative-sticky"), with its opaque metadata (the subscription). */
public record Protocol(String name, byte[] metadata) {

    @Override
    public boolean equals(Object o) {
        return o instanceof Protocol p && name.equals(p.name) && Arrays.equals(metadata, p.metadata);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + Arrays.hashCode(metadata);
    }

    @Override
    public String toString() {
        return name;
    }
}
