package dev.samsa.event;

/** Text shared by several events' details. */
final class EventText {

    private EventText() {
    }

    /** A group member as Kafka's logs show it: its member id, and a static member's instance id in parentheses. */
    static String member(String memberId, String groupInstanceId) {
        return memberId + (groupInstanceId == null ? "" : "(" + groupInstanceId + ")");
    }
}
