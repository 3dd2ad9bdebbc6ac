package dev.samsa.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.samsa.KafkaCluster;
import dev.samsa.time.ClusterClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The HTML timeline of a scenario with a crash, an ISR shrink, an unclean election and a rebalance. */
class TimelineHtmlTest {

    @Test
    void aThreeBrokerScenarioDrawsOneLanePerBrokerPartitionAndGroupWithItsFaults() throws Exception {
        Path html = Path.of("target", "timeline-html-test.html");
        try (KafkaCluster cluster = KafkaCluster.builder().brokers(3).seed(171)
                .clock(ClusterClock.manual(Instant.parse("2026-01-01T00:00:00Z")))
                .brokerConfig("unclean.leader.election.enable", "true")
                .brokerConfig("group.initial.rebalance.delay.ms", "0")
                .topic("events", 1, 3).start()) {
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(cluster.producerConfig())) {
                producer.send(new ProducerRecord<>("events", 0, "k", "v")).get();
            }
            consumeOnce(cluster);
            int leader = cluster.partition("events", 0).leader();
            List<Integer> followers = new ArrayList<>(cluster.partition("events", 0).replicas());
            followers.remove(Integer.valueOf(leader));
            followers.forEach(f -> cluster.faults().pauseReplication("events", 0, f));
            // acks=1 writes the leader alone holds: the unclean election below loses them.
            Map<String, Object> acks1 = cluster.producerConfig();
            acks1.put("acks", "1");
            acks1.put("enable.idempotence", "false");
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(acks1)) {
                for (int n = 0; n < 3; n++) {
                    producer.send(new ProducerRecord<>("events", 0, "k", "lost-" + n)).get();
                }
            }
            cluster.clock().advance(Duration.ofMillis(30_001)); // replica.lag.time.max.ms: the followers leave the ISR
            cluster.broker(leader).crash();
            followers.forEach(f -> cluster.faults().resumeReplication("events", 0, f));
            await().atMost(Duration.ofSeconds(10)).until(() -> cluster.partition("events", 0).leader() > 0);

            cluster.events().writeHtml(html);

            Document page = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(html.toFile());
            List<String> lanes = new ArrayList<>();
            Map<String, Element> byName = new java.util.HashMap<>();
            NodeList groups = page.getElementsByTagName("g");
            for (int i = 0; i < groups.getLength(); i++) {
                Element g = (Element) groups.item(i);
                lanes.add(g.getAttribute("data-lane"));
                byName.put(g.getAttribute("data-lane"), g);
            }
            assertThat(lanes).doesNotHaveDuplicates()
                    .contains("broker 1", "broker 2", "broker 3", "events-0", "group reader");
            assertThat(lanes.stream().filter(l -> l.startsWith("broker "))).hasSize(3);
            assertThat(titles(byName.get("broker " + leader), "rect", "fault"))
                    .anyMatch(t -> t.contains("BrokerStopped  broker=" + leader + " how=CRASH"));
            assertThat(titles(byName.get("broker " + leader), "rect", "down")).isNotEmpty();
            assertThat(titles(byName.get("events-0"), "rect", "fault"))
                    .anyMatch(t -> t.contains("UncleanLeaderElected"))
                    .anyMatch(t -> t.contains("FaultApplied  pause replication of events-0"));
            assertThat(titles(byName.get("events-0"), "circle", "event")).anyMatch(t -> t.contains("IsrShrunk"));
            assertThat(titles(byName.get("group reader"), "rect", "state")).contains("Stable");
            assertThat(titles(byName.get("events-0"), "polygon", "lost")).as("the acks=1 loss, flagged where it happened")
                    .singleElement().satisfies(t -> assertThat(t)
                            .contains("lost: offsets 1..1 acknowledged (acks=1) by broker " + leader)
                            .contains("lost: offsets 3..3").contains("UncleanLeaderElected"));
            assertThat(x(byName.get("events-0"), "polygon", "lost")).as("the flag stands over the unclean election")
                    .isEqualTo(x(byName.get("events-0"), "rect", "fault", "UncleanLeaderElected"));
            assertThat(Files.readString(html)).doesNotContain("<script").doesNotContain("http://www.w3.org/1999/xhtml\" src");
        }
    }

    @Test
    void aFindingIsFlaggedOnItsLaneAtTheFirstEventAtOrAfterItsTime() throws Exception {
        List<TimedEvent> events = List.of(new TimedEvent(1_000, new BrokerStarted(1)),
                new TimedEvent(2_000, new HighWatermark("orders", 0, 5)), new TimedEvent(3_000, new BrokerStarted(2)));
        String page = TimelineHtml.render(new ClusterTimeline.Snapshot(0, events), List.of(
                new Finding("duplicate", "orders-0", 2_500, null, "orders-0 producer 7 epoch 0 sequence 3 at offsets [3, 4]"),
                new Finding("lost", "orders-1", 1_000, null, "offsets 0..1")));
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new java.io.ByteArrayInputStream(page.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        Map<String, Element> lanes = new java.util.HashMap<>();
        NodeList groups = doc.getElementsByTagName("g");
        for (int i = 0; i < groups.getLength(); i++) {
            lanes.put(((Element) groups.item(i)).getAttribute("data-lane"), (Element) groups.item(i));
        }
        Element duplicate = (Element) lanes.get("orders-0").getElementsByTagName("polygon").item(0);
        assertThat(duplicate.getAttribute("class")).isEqualTo("duplicate");
        assertThat(duplicate.getTextContent()).isEqualTo("duplicate: orders-0 producer 7 epoch 0 sequence 3 at offsets [3, 4]");
        // At the third event (x = label + 3 steps), the first at or after 2.5 s.
        assertThat(duplicate.getAttribute("points")).startsWith((190 + 14 * 3 - 6) + ",");
        assertThat(titles(lanes.get("orders-1"), "polygon", "lost")).as("a lane of its own when no event has one")
                .containsExactly("lost: offsets 0..1");
    }

    /** The middle of the first {@code tag} mark of class {@code css} whose title contains {@code text}. */
    private static int x(Element lane, String tag, String css, String... text) {
        NodeList marks = lane.getElementsByTagName(tag);
        for (int i = 0; i < marks.getLength(); i++) {
            Element mark = (Element) marks.item(i);
            if (mark.getAttribute("class").equals(css) && (text.length == 0
                    || mark.getElementsByTagName("title").item(0).getTextContent().contains(text[0]))) {
                return tag.equals("polygon") ? Integer.parseInt(mark.getAttribute("points").split(",")[0]) + 6
                        : Integer.parseInt(mark.getAttribute("x")) + 5;
            }
        }
        throw new AssertionError("no " + tag + " of class " + css + " in " + lane.getAttribute("data-lane"));
    }

    private static List<String> titles(Element lane, String tag, String css) {
        List<String> out = new ArrayList<>();
        NodeList marks = lane.getElementsByTagName(tag);
        for (int i = 0; i < marks.getLength(); i++) {
            Element mark = (Element) marks.item(i);
            if (mark.getAttribute("class").equals(css)) {
                out.add(mark.getElementsByTagName("title").item(0).getTextContent());
            }
        }
        return out;
    }

    private static void consumeOnce(KafkaCluster cluster) {
        Map<String, Object> config = cluster.consumerConfig("reader");
        config.put("auto.offset.reset", "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of("events"));
            await().atMost(Duration.ofSeconds(20)).until(() -> !consumer.poll(Duration.ofMillis(50)).isEmpty());
            consumer.commitSync();
        }
    }
}
