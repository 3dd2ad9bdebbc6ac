package dev.samsa.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.time.ClusterClock;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The HTML timeline read as a person reads it, without hovering: what the bands, labels and tables say for the
 * README's data loss (acks=1, the leader crashes, 10 acknowledged records are gone) and for a rebalance.
 */
class TimelineHtmlTest {

    @Test
    void anAcksOneLeaderCrashShowsTheElectionTheIsrShrinkTheCrashAndTheTenLostRecordsWithTheirFault() throws Exception {
        // The example of docs/history-and-timeline.md, as written there.
        Path html = Path.of("target", "timeline-html-test-data-loss.html");
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(1)
                .clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z")))
                .topic("payments", 1, 3).start()) {
            Map<String, Object> config = cluster.producerConfig();
            config.put("acks", "1");
            config.put("enable.idempotence", "false");
            int leader;
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
                for (int i = 0; i < 100; i++) {
                    producer.send(new ProducerRecord<>("payments", 0, "k", "before-" + i)).get();
                }
                await().atMost(Duration.ofSeconds(10)).until(() -> cluster.partition("payments", 0).highWatermark() == 100);
                cluster.clock().advance(Duration.ofSeconds(45));    // nothing happens: the page draws a labelled break
                leader = cluster.partition("payments", 0).leader();
                List<Integer> followers = new ArrayList<>(cluster.partition("payments", 0).replicas());
                followers.remove(Integer.valueOf(leader));
                followers.forEach(f -> cluster.faults().pauseReplication("payments", 0, f));
                for (int i = 0; i < 10; i++) {                      // acks=1: the leader alone acknowledges these
                    producer.send(new ProducerRecord<>("payments", 0, "k", "lost-" + i)).get();
                }
                cluster.broker(leader).crash();                     // ... and its crash takes them with it
                followers.forEach(f -> cluster.faults().resumeReplication("payments", 0, f));
                cluster.broker(leader).restart();
                await().atMost(Duration.ofSeconds(10)).until(() -> cluster.partition("payments", 0).isr().size() == 3);
            }
            assertThat(cluster.history().lostRecords()).isEqualTo(10);
            cluster.events().writeHtml(html, "DataLoss.acksOne()");
            // The page: "leader L · epoch 0" then "leader N · epoch 1", the ISR shrinking to the followers, the crash
            // mark, "10 lost", and the findings table with offsets 100 to 109, each linked to the crash that lost it.
            int newLeader = cluster.partition("payments", 0).leader();

            Page page = Page.parse(Files.readString(html));
            assertThat(page.text("h1")).contains("DataLoss.acksOne()");
            assertThat(page.byClass("seed")).singleElement().satisfies(e -> assertThat(e.getTextContent()).isEqualTo("seed 1"));
            assertThat(page.texts("payments-0", "band-label leader")).as("the leader and its epoch, written in the band")
                    .containsSubsequence("leader " + leader + " \u00b7 epoch 0", "leader " + newLeader + " \u00b7 epoch 1");
            List<String> isr = page.texts("payments-0", "band-label isr").stream().distinct().toList(); // repeated past a break
            assertThat(isr).as("the ISR, written under it").hasSize(3).first().asString().matches("ISR \\[\\d, \\d, \\d\\]");
            assertThat(isr.get(1)).as("the crash shrank the ISR to the followers")
                    .matches("ISR \\[\\d, \\d\\]").doesNotContain(Integer.toString(leader));
            assertThat(page.texts("faults", "fault-label")).contains("crash broker " + leader);
            assertThat(page.texts("broker " + leader, "band-label down")).containsExactly("crash");
            assertThat(page.texts("payments-0", "finding-label")).containsExactly("10 lost");
            assertThat(page.breaks()).as("the 45 s jump, compressed and labelled").containsEntry(45_000L, "45 s");

            List<Element> lost = page.rows("findings lost");
            assertThat(lost).as("one row per lost record").hasSize(10);
            Map<String, Integer> column = page.columns("findings lost");
            assertThat(lost).extracting(r -> page.cell(r, column.get("offsets")).getTextContent())
                    .containsExactlyElementsOf(IntStream.range(100, 110).mapToObj(Integer::toString).toList());
            assertThat(lost).allSatisfy(r -> {
                assertThat(page.cell(r, column.get("topic")).getTextContent()).isEqualTo("payments");
                assertThat(page.cell(r, column.get("partition")).getTextContent()).isEqualTo("0");
                assertThat(page.cell(r, column.get("acks")).getTextContent()).isEqualTo("1");
                assertThat(page.cell(r, column.get("producer id")).getTextContent()).isEqualTo("none");
                assertThat(page.cell(r, column.get("acknowledged by")).getTextContent()).isEqualTo("broker " + leader);
                assertThat(page.cell(r, column.get("acknowledged at")).getTextContent()).isEqualTo("2026-01-01T00:00:45Z");
                Element fault = page.target(page.cell(r, column.get("lost by")));
                assertThat(page.title(fault)).as("linked to the crash's mark").contains("BrokerStopped  broker=" + leader + " how=CRASH");
                assertThat(page.laneOf(fault)).isEqualTo("faults");
                assertThat(page.title(page.target(page.cell(r, column.get("lost at"))))).contains("LeaderChanged  payments-0");
            });
            page.assertEveryLinkResolves();
            assertThat(Files.readString(html)).as("nothing fetched").doesNotContain("src=").doesNotContain("href=\"http")
                    .doesNotContain("url(http");
        }
    }

    @Test
    void aRebalanceShowsEachGenerationsStableBandWithItsNumberAndMembersAndEveryGroupState() throws Exception {
        Path html = Path.of("target", "timeline-html-test-rebalance.html");
        try (KafkaCluster cluster = KafkaCluster.builder().seed(7)
                .clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z"))).topic("orders", 4, 1).start()) {
            Map<String, Object> config = cluster.consumerConfig("billing");
            config.put("client.id", "first");
            try (KafkaConsumer<String, String> first = new KafkaConsumer<>(config)) {
                first.subscribe(List.of("orders"));
                await().atMost(Duration.ofSeconds(20)).until(() -> {
                    first.poll(Duration.ofMillis(20));
                    return first.assignment().size() == 4;
                });
                config.put("client.id", "second");
                try (KafkaConsumer<String, String> second = new KafkaConsumer<>(config)) {
                    second.subscribe(List.of("orders"));
                    await().atMost(Duration.ofSeconds(20)).until(() -> {
                        first.poll(Duration.ofMillis(20));
                        second.poll(Duration.ofMillis(20));
                        return first.assignment().size() == 2 && second.assignment().size() == 2;
                    });
                }
                await().atMost(Duration.ofSeconds(20)).until(() -> {
                    first.poll(Duration.ofMillis(20));
                    return first.assignment().size() == 4;
                });
            }
            try (Admin admin = Admin.create(cluster.adminConfig())) {
                admin.deleteConsumerGroups(List.of("billing")).all().get();
            }

            cluster.events().writeHtml(html);

            Page page = Page.parse(Files.readString(html));
            assertThat(page.texts("group billing", "band-label group-state"))
                    .filteredOn(t -> t.startsWith("Stable")).as("each generation's Stable band, numbered (in full where it fits)")
                    .allMatch(t -> t.matches("Stable( \u00b7 generation | g)\\d")).extracting(t -> t.replaceAll("\\D", ""))
                    .containsExactly("1", "2", "3");
            assertThat(page.texts("group billing", "band-detail")).as("with its members")
                    .containsExactly("first", "first, second", "first");
            assertThat(page.titles("group billing", "band group-state")).extracting(t -> t.split(" ")[0]).as("every state")
                    .contains("Empty", "PreparingRebalance", "CompletingRebalance", "Stable", "Dead");
            assertThat(page.texts("group billing", "mark-label join")).containsExactly("+first", "+second");
            assertThat(page.texts("group billing", "mark-label leave")).containsExactly("\u2212second", "\u2212first");
            List<Element> generations = page.rows("generations");
            assertThat(generations).extracting(r -> page.cell(r, 1).getTextContent() + ": " + page.cell(r, 4).getTextContent())
                    .hasSize(3).allSatisfy(g -> assertThat(g).matches("\\d: first-[0-9a-f-]+(, second-[0-9a-f-]+)?"));
            // Who owned what in each generation: all 4 partitions to first, then 2 each, then all 4 to first again.
            assertThat(generations).extracting(r -> page.cell(r, 5).getTextContent().replaceAll("-[0-9a-f]{8}-[0-9a-f-]+", ""))
                    .containsExactly("first: orders-0, orders-1, orders-2, orders-3",
                            "first: orders-0, orders-1; second: orders-2, orders-3",
                            "first: orders-0, orders-1, orders-2, orders-3");
            assertThat(cluster.events().events(AssignmentDistributed.class)).hasSize(3);
            page.assertEveryLinkResolves();
        }
    }

    @Test
    void aLongJumpOfTheClockIsABreakLabelledWithItsLengthWhileEventsTwoMillisecondsApartStandApart() throws Exception {
        long t0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
        List<TimedEvent> events = List.of(new TimedEvent(t0, new BrokerStarted(1)),
                new TimedEvent(t0 + 45_000, new BrokerStopped(1, "CRASH")),
                new TimedEvent(t0 + 45_000, new LeaderChanged("orders", 0, 1, 2, 1, List.of(2), "broker 1 stopped", false)),
                new TimedEvent(t0 + 45_002, new LeaderChanged("orders", 0, 2, 3, 2, List.of(3), "election", false)));
        Page page = Page.parse(TimelineHtml.render(new ClusterTimeline.Snapshot(0, events), List.of()));
        assertThat(page.breaks()).containsExactly(Map.entry(45_000L, "45 s"));
        List<Double> x = page.xOf("orders-0", "mark election");
        assertThat(x).hasSize(2);
        assertThat(x.get(1) - x.get(0)).as("2 ms apart, at least a step apart").isGreaterThanOrEqualTo(TimelineAxis.MIN_STEP);
        assertThat(page.tickLabels()).contains("00:00:00.000", "00:00:45.000");
        assertThat(page.texts("orders-0", "band-label leader").stream().distinct())
                .as("created before the first event: its epoch known after")
                .containsExactly("leader 1", "2 e1", "leader 3 \u00b7 epoch 2"); // the 2 ms band is too narrow to spell out
    }

    @Test
    void eachFaultIsABarFromWhenItWasAppliedToWhenItHealedLabelledWithWhatItIs() throws Exception {
        List<TimedEvent> events = List.of(new TimedEvent(0, new BrokerStarted(1)),
                new TimedEvent(10, new BrokerIsolated(2, false, true)),
                new TimedEvent(12, new BrokerLatency(1, Duration.ofMillis(200))),
                new TimedEvent(14, new RequestsIntercepted("PRODUCE")),
                new TimedEvent(16, new ReplicationPaused("orders", 0, 3)),
                new TimedEvent(20, new FailuresScheduled("FETCH", "NOT_LEADER_OR_FOLLOWER", 2)),
                new TimedEvent(30, new IsolationHealed(2)),
                new TimedEvent(32, new BrokerLatency(1, Duration.ZERO)),
                new TimedEvent(34, new InterceptionRemoved("PRODUCE")),
                new TimedEvent(36, new ReplicationResumed("orders", 0, 3)));
        Page page = Page.parse(TimelineHtml.render(new ClusterTimeline.Snapshot(0, events), List.of()));
        assertThat(page.texts("faults", "fault-label")).containsExactly("isolate broker 2 from brokers",
                "latency broker 1 200 ms", "intercept PRODUCE", "pause replication orders-0 \u2192 broker 3",
                "fail next 2 FETCH NOT_LEADER_OR_FOLLOWER");
        List<Element> bars = page.inLane("faults", "fault-span");
        assertThat(bars).hasSize(4);
        int[][] spans = {{1, 6}, {2, 7}, {3, 8}, {4, 9}};
        for (int i = 0; i < spans.length; i++) {
            Element bar = bars.get(i);
            double x0 = Double.parseDouble(bar.getAttribute("x"));
            assertThat(x0).as("bar %d starts at its fault", i).isEqualTo(page.xOfEvent(spans[i][0]));
            assertThat(x0 + Double.parseDouble(bar.getAttribute("width"))).as("and ends at its heal")
                    .isEqualTo(page.xOfEvent(spans[i][1]));
        }
        page.assertEveryLinkResolves();
    }

    @Test
    void anIsrBelowMinInsyncReplicasIsRedAndSaysSo() throws Exception {
        List<TimedEvent> events = List.of(new TimedEvent(0, new TopicCreated("orders", 1, 3, "id", 2,
                        List.of(new PartitionState(0, 1, 0, List.of(1, 2, 3))))),
                new TimedEvent(0, new IsrShrunk("orders", 0, List.of(1, 2), 3, "lagging")),
                new TimedEvent(0, new IsrShrunk("orders", 0, List.of(1), 2, "lagging")),
                new TimedEvent(0, new IsrExpanded("orders", 0, List.of(1, 2), 2)));
        Page page = Page.parse(TimelineHtml.render(new ClusterTimeline.Snapshot(0, events), List.of()));
        assertThat(page.texts("orders-0", "band-label isr")).as("spelt out where it fits")
                .containsExactly("ISR [1, 2, 3]", "ISR [1, 2]", "[1] < min 2", "ISR [1, 2]");
        assertThat(page.titles("orders-0", "band isr-below")).containsExactly("ISR [1] < min.insync.replicas 2");
        assertThat(page.texts("orders-0", "band-label leader")).containsExactly("leader 1 \u00b7 epoch 0");
    }

    @Test
    void aFindingIsFlaggedOnItsLaneAtTheFirstEventAtOrAfterItsTimeAndListedInItsTable() throws Exception {
        List<TimedEvent> events = List.of(new TimedEvent(1_000, new BrokerStarted(1)),
                new TimedEvent(2_000, new HighWatermark("orders", 0, 5)), new TimedEvent(3_000, new BrokerStarted(2)));
        Page page = Page.parse(TimelineHtml.render(new ClusterTimeline.Snapshot(0, events), List.of(
                new Finding("duplicate", "orders-0", 2_500, -1, -1, 2, new java.util.TreeMap<>(Map.of("producer id", "7", "sequence", "3")),
                        "orders-0 producer 7 epoch 0 sequence 3 at offsets [3, 4]"),
                new Finding("lost", "orders-1", 1_000, "offsets 0..1"))));
        assertThat(page.texts("orders-0", "finding-label")).containsExactly("2 duplicated");
        assertThat(page.xOf("orders-0", "finding duplicate")).as("at the third event, the first at or after 2.5 s")
                .containsExactly(page.xOfEvent(2));
        assertThat(page.texts("orders-1", "finding-label")).as("a lane of its own when no event has one")
                .containsExactly("1 lost");
        assertThat(page.rows("findings duplicate")).singleElement()
                .satisfies(r -> assertThat(r.getTextContent()).startsWith("73"));
        page.assertEveryLinkResolves();
    }

    /** A rendered page, parsed as XML, with the questions the tests ask of it. */
    private record Page(Document doc, Map<String, Element> ids) {

        static Page parse(String html) throws Exception {
            Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new ByteArrayInputStream(html.getBytes(StandardCharsets.UTF_8)));
            Map<String, Element> ids = new HashMap<>();
            NodeList all = doc.getElementsByTagName("*");
            for (int i = 0; i < all.getLength(); i++) {
                Element e = (Element) all.item(i);
                if (!e.getAttribute("id").isEmpty()) {
                    assertThat(ids.put(e.getAttribute("id"), e)).as("id %s is unique", e.getAttribute("id")).isNull();
                }
            }
            return new Page(doc, ids);
        }

        String text(String tag) {
            return doc.getElementsByTagName(tag).item(0).getTextContent();
        }

        List<Element> byClass(String css) {
            List<Element> out = new ArrayList<>();
            NodeList all = doc.getElementsByTagName("*");
            for (int i = 0; i < all.getLength(); i++) {
                Element e = (Element) all.item(i);
                if (hasClasses(e, css)) {
                    out.add(e);
                }
            }
            return out;
        }

        /** Elements of class {@code css} in a lane's groups (bands, marks and labels are drawn in layers). */
        List<Element> inLane(String lane, String css) {
            List<Element> out = new ArrayList<>();
            NodeList groups = doc.getElementsByTagName("g");
            for (int i = 0; i < groups.getLength(); i++) {
                Element g = (Element) groups.item(i);
                if (g.getAttribute("data-lane").equals(lane)) {
                    NodeList all = g.getElementsByTagName("*");
                    for (int j = 0; j < all.getLength(); j++) {
                        Element e = (Element) all.item(j);
                        if (hasClasses(e, css)) {
                            out.add(e);
                        }
                    }
                }
            }
            return out;
        }

        /** Whether the element has every class of {@code css} ("band-label leader" matches "band-label leader on-dark"). */
        private static boolean hasClasses(Element e, String css) {
            return List.of(e.getAttribute("class").split(" ")).containsAll(List.of(css.split(" ")));
        }

        List<String> texts(String lane, String css) {
            return inLane(lane, css).stream().map(Element::getTextContent).toList();
        }

        List<String> titles(String lane, String css) {
            return inLane(lane, css).stream().map(this::title).toList();
        }

        List<Double> xOf(String lane, String css) {
            return inLane(lane, css).stream().map(Page::middle).toList();
        }

        /** Where event {@code position} is drawn: its mark, or the start of the band it begins. */
        double xOfEvent(int position) {
            Element e = ids.get("e" + position);
            return hasClasses(e, "band") ? Double.parseDouble(e.getAttribute("x")) : middle(e);
        }

        private static double middle(Element e) {
            if (e.getTagName().equals("polygon")) {
                String[] points = e.getAttribute("points").split("[ ,]");
                java.util.DoubleSummaryStatistics x = IntStream.range(0, points.length / 2)
                        .mapToDouble(i -> Double.parseDouble(points[2 * i])).summaryStatistics();
                return (x.getMin() + x.getMax()) / 2;
            }
            if (e.getTagName().equals("circle")) {
                return Double.parseDouble(e.getAttribute("cx"));
            }
            return Double.parseDouble(e.getAttribute("x")) + Double.parseDouble(e.getAttribute("width")) / 2;
        }

        String title(Element mark) {
            return mark.getElementsByTagName("title").item(0).getTextContent();
        }

        String laneOf(Element e) {
            for (org.w3c.dom.Node n = e; n instanceof Element el; n = n.getParentNode()) {
                if (!el.getAttribute("data-lane").isEmpty() && el.getTagName().equals("g")) {
                    return el.getAttribute("data-lane");
                }
            }
            return null;
        }

        Map<Long, String> breaks() {
            Map<Long, String> out = new java.util.LinkedHashMap<>();
            byClass("break").forEach(b -> out.put(Long.parseLong(b.getAttribute("data-ms")),
                    b.getElementsByTagName("text").item(0).getTextContent()));
            return out;
        }

        List<String> tickLabels() {
            return byClass("tick-label").stream().map(Element::getTextContent).toList();
        }

        /** The tables of class {@code css} (the event table comes in tables of a few hundred rows). */
        private List<Element> tables(String css) {
            List<Element> out = new ArrayList<>();
            NodeList tables = doc.getElementsByTagName("table");
            for (int i = 0; i < tables.getLength(); i++) {
                if (hasClasses((Element) tables.item(i), css)) {
                    out.add((Element) tables.item(i));
                }
            }
            assertThat(out).as("tables of class %s", css).isNotEmpty();
            return out;
        }

        private Element table(String css) {
            return tables(css).get(0);
        }

        List<Element> rows(String css) {
            List<Element> out = new ArrayList<>();
            for (Element table : tables(css)) {
                NodeList rows = ((Element) table.getElementsByTagName("tbody").item(0)).getElementsByTagName("tr");
                IntStream.range(0, rows.getLength()).forEach(i -> out.add((Element) rows.item(i)));
            }
            return out;
        }

        Map<String, Integer> columns(String css) {
            NodeList th = table(css).getElementsByTagName("th");
            Map<String, Integer> out = new HashMap<>();
            for (int i = 0; i < th.getLength(); i++) {
                out.put(th.item(i).getTextContent(), i);
            }
            return out;
        }

        Element cell(Element row, int column) {
            return (Element) row.getElementsByTagName("td").item(column);
        }

        /** The element a cell's (or a mark's) link points at. */
        Element target(Element holder) {
            Element a = (Element) holder.getElementsByTagName("a").item(0);
            assertThat(a).as("a link in %s", holder.getTextContent()).isNotNull();
            return ids.get(a.getAttribute("href").substring(1));
        }

        /** Every in-page link lands on an element; every event row links to its mark and that mark back to the row. */
        void assertEveryLinkResolves() {
            NodeList links = doc.getElementsByTagName("a");
            for (int i = 0; i < links.getLength(); i++) {
                String href = ((Element) links.item(i)).getAttribute("href");
                assertThat(href).startsWith("#");
                assertThat(ids).as("the target of %s", href).containsKey(href.substring(1));
            }
            for (Element row : rows("events")) {
                Element mark = target(cell(row, 0));
                Element back = (Element) mark.getParentNode();
                assertThat(back.getAttribute("href")).as("the mark of %s links back", row.getAttribute("id"))
                        .isEqualTo("#" + row.getAttribute("id"));
            }
        }
    }
}
