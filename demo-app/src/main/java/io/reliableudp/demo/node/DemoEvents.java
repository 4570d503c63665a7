package io.reliableudp.demo.node;

/**
 * The typed events the demo's nodes exchange (records: JSON on the wire, converted back by the
 * listeners). Every event names its rover and, for the reliable streams, the rover's epoch (one per
 * start of its node), so the station checks order and completeness per incarnation.
 */
public final class DemoEvents {

    private DemoEvents() {
    }

    /**
     * A rover's position: channel {@code positions}, reliable-ordered.
     *
     * @param rover the rover's name
     * @param epoch which start of the rover's node sent it
     * @param seq 0, 1, 2... per epoch
     * @param x metres east
     * @param y metres north
     * @param sentAtNanos {@link System#nanoTime()} at the send (one JVM: comparable at the station)
     */
    public record Position(String rover, int epoch, long seq, double x, double y, long sentAtNanos) {
    }

    /**
     * Best-effort telemetry: channel {@code telemetry}, unreliable-sequenced (a late sample is dropped).
     *
     * @param rover the rover's name
     * @param seq sample number
     * @param batteryVolts the reading
     * @param sentAtNanos send time
     */
    public record Telemetry(String rover, long seq, double batteryVolts, long sentAtNanos) {
    }

    /**
     * A camera frame: channel {@code images}, reliable-unordered, about 16 KB, so sent in slices.
     *
     * @param rover the rover's name
     * @param epoch the rover's epoch
     * @param seq frame number
     * @param pixels the frame
     * @param checksum CRC-32 of {@code pixels}, checked by the station
     * @param sentAtNanos send time
     */
    public record Frame(String rover, int epoch, long seq, byte[] pixels, long checksum, long sentAtNanos) {
    }

    /**
     * A rover asks the station how much of its stream arrived: channel {@code requests}, request/reply.
     *
     * @param rover the rover's name
     * @param epoch the rover's epoch
     */
    public record StatusQuery(String rover, int epoch) {
    }

    /**
     * The station's answer.
     *
     * @param positionsDelivered positions of that epoch delivered to the station's listener
     * @param framesDelivered frames of that epoch delivered intact
     */
    public record StatusReply(long positionsDelivered, long framesDelivered) {
    }
}
