package dev.samsa.bench;

import dev.samsa.event.BrokerStarted;
import dev.samsa.event.BrokerStopped;
import dev.samsa.event.ClusterStarted;
import dev.samsa.event.GroupStateChanged;
import dev.samsa.event.HighWatermark;
import dev.samsa.event.IsrExpanded;
import dev.samsa.event.IsrShrunk;
import dev.samsa.event.LeaderChanged;
import dev.samsa.event.MemberJoined;
import dev.samsa.event.PartitionState;
import dev.samsa.event.ReplicationPaused;
import dev.samsa.event.ReplicationResumed;
import dev.samsa.event.Timeline;
import dev.samsa.event.TopicCreated;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The HTML timeline of a busy cluster (default 5,000 events: high-watermark moves on six partitions, a crash and a
 * paused follower every few hundred events with their elections and ISR changes, a group rebalancing, a 45 s jump of
 * the clock now and then), written to a file (default target/timeline-5000.html) for a browser to open; prints how
 * long the page took to render. Not a test: surefire excludes {@code **}{@code /bench/**}. A browser opening the page
 * is timed against an empty page, the difference being the page's own cost:
 *
 * <pre>
 * mvn -o -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
 * java -cp target/classes:target/test-classes:$(cat target/cp.txt) dev.samsa.bench.TimelinePageBenchmark [events] [path]
 * time chromium --headless --no-sandbox --disable-gpu --user-data-dir=$(mktemp -d) --screenshot=/tmp/t.png \
 *     --window-size=1600,1200 file://$PWD/target/timeline-5000.html
 * </pre>
 */
public final class TimelinePageBenchmark {

    private TimelinePageBenchmark() {
    }

    public static void main(String[] args) {
        int count = NanoSamples.arg(args, 0, 5_000);
        Path path = Path.of(args.length > 1 ? args[1] : "target/timeline-" + count + ".html");
        AtomicLong now = new AtomicLong(java.time.Instant.parse("2026-01-01T00:00:00Z").toEpochMilli());
        Timeline timeline = new Timeline(now::get, System::currentTimeMillis);
        timeline.record(new ClusterStarted(42, 3));
        List<PartitionState> initial = new ArrayList<>();
        for (int p = 0; p < 6; p++) {
            initial.add(new PartitionState(p, 1 + p % 3, 0, List.of(1, 2, 3)));
        }
        for (int b = 1; b <= 3; b++) {
            timeline.record(new BrokerStarted(b));
        }
        timeline.record(new TopicCreated("orders", 6, 3, "id", 2, initial));
        int[] leaders = {1, 2, 3, 1, 2, 3};
        int[] epochs = new int[6];
        long[] hw = new long[6];
        for (int n = 0; timeline.events().size() < count; n++) {
            int p = n % 6;
            now.addAndGet(n % 500 == 499 ? 45_000 : 3);
            timeline.record(new HighWatermark("orders", p, ++hw[p]));
            if (n % 300 == 150) {
                int broker = 1 + n / 300 % 3;
                timeline.record(new BrokerStopped(broker, "CRASH"));
                for (int q = 0; q < 6; q++) {
                    if (leaders[q] == broker) {
                        int next = broker % 3 + 1;
                        timeline.record(new LeaderChanged("orders", q, broker, next, ++epochs[q],
                                List.of(next, next % 3 + 1), "broker " + broker + " stopped", false));
                        leaders[q] = next;
                    } else {
                        timeline.record(new IsrShrunk("orders", q, List.of(leaders[q]), broker, "broker stopped"));
                    }
                }
                now.addAndGet(2);
                timeline.record(new BrokerStarted(broker));
                for (int q = 0; q < 6; q++) {
                    timeline.record(new IsrExpanded("orders", q, List.of(1, 2, 3), broker));
                }
            }
            if (n % 400 == 10) {
                timeline.record(new ReplicationPaused("orders", p, leaders[p] % 3 + 1));
                timeline.record(new GroupStateChanged("billing", "Stable", "PreparingRebalance", n, "m-1", List.of("m-1")));
                timeline.record(new MemberJoined("billing", "m-" + n, null, "consumer-" + n));
                timeline.record(new GroupStateChanged("billing", "PreparingRebalance", "Stable", n + 1, "m-1",
                        List.of("m-1", "m-" + n)));
            }
            if (n % 400 == 60) {
                timeline.record(new ReplicationResumed("orders", (n - 50) % 6, leaders[(n - 50) % 6] % 3 + 1));
            }
        }
        long start = System.nanoTime();
        timeline.writeHtml(path, "TimelinePageBenchmark (" + count + " events)");
        System.out.printf(java.util.Locale.ROOT, "%s: %d events rendered in %.0f ms%n", path.toAbsolutePath(),
                timeline.events().size(), (System.nanoTime() - start) / 1e6);
    }
}
