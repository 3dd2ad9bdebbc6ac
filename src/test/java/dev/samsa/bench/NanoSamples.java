package dev.samsa.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** What the benchmarks share: their arguments, and how they print timed samples. */
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

    /** A benchmark's arguments: the positional ones, and the cluster of {@code --bootstrap host:port} (null: Samsa). */
    record Args(List<String> positional, String bootstrap) {

        static Args parse(String[] args) {
            List<String> positional = new ArrayList<>();
            String bootstrap = null;
            for (int i = 0; i < args.length; i++) {
                if (args[i].equals("--bootstrap")) {
                    bootstrap = args[++i];
                } else {
                    positional.add(args[i]);
                }
            }
            return new Args(positional, bootstrap);
        }

        int integer(int index, int defaultValue) {
            return positional.size() > index ? Integer.parseInt(positional.get(index)) : defaultValue;
        }
    }

    static int arg(String[] args, int index, int defaultValue) {
        return args.length > index ? Integer.parseInt(args[index]) : defaultValue;
    }
}
