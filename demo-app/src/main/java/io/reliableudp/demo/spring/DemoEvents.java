package io.reliableudp.demo.spring;

/** The typed events of the demo (records: JSON on the wire, converted back by the listeners). */
final class DemoEvents {

    private DemoEvents() {
    }

    /** The rover's position, sent reliably and in order. */
    record Position(long seq, double x, double y, long sentAtNanos) {
    }

    /** The station's answer to a position. */
    record Ack(long seq, long sentAtNanos) {
    }

    /** Best-effort telemetry: losing some is fine. */
    record Telemetry(long seq, double batteryVolts) {
    }
}
