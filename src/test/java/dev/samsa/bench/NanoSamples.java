package dev.samsa.bench;

import java.util.Arrays;
import java.util.Locale;

/** What the start-up and connection benchmarks share: integer arguments, and how they print timed samples. */
final class NanoSamples {

    private NanoSamples() {
    }

    /** {@code nanos} as min, median, p90 and max in milliseconds, with {@code decimals} digits after the point. */
    static String summary(long[] nanos, int decimals) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        String ms = "%." + decimals + "f";
        return String.format(Locale.ROOT, "min " + ms + ", median " + ms + ", p90 " + ms + ", max " + ms + " ms",
                sorted[0] / 1e6, sorted[n / 2] / 1e6, sorted[(int) (n * 0.9)] / 1e6, sorted[n - 1] / 1e6);
    }

    static int arg(String[] args, int index, int defaultValue) {
        return args.length > index ? Integer.parseInt(args[index]) : defaultValue;
    }
}
