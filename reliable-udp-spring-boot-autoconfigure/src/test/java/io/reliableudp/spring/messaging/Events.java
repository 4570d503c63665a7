package io.reliableudp.spring.messaging;

/** Typed events exchanged in the tests (records: JSON on the wire). */
final class Events {

    private Events() {
    }

    record Position(String unit, double x, double y, long seq) {
    }

    record Ack(long seq, String by) {
    }

    record Telemetry(String unit, int value) {
    }
}
