package io.reliableudp.message;

import io.reliableudp.packet.PacketCounter;
import io.reliableudp.packet.PacketTransmitter;
import io.reliableudp.packet.ReliableConfig;
import io.reliableudp.packet.ReliableEndpoint;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The production {@link PacketLink}: one {@link ReliableEndpoint} sized so that a regular packet
 * never exceeds the datagram budget (fragmentation only for unreliable messages larger than one
 * packet) and header-only (ack-only) packets are allowed.
 */
final class ReliablePacketLink implements PacketLink {

    final ReliableEndpoint endpoint;
    /**
     * Housekeeping updates since the statistics were last computed: they are computed when
     * {@link #stats()} reads them, with one smoothing step per update skipped, not at every update
     * (a walk over the RTT history and both windows, ~1,300 slots, per connection per tick).
     */
    private int skippedUpdates;
    /** The latest time given (the endpoint's clock: the statistics are computed at it, so it never moves back). */
    private double clock = Double.NEGATIVE_INFINITY;

    ReliablePacketLink(double time, Sizing sizing, Hooks hooks) {
        ReliableConfig config = ReliableConfig.builder()
                .name("message")
                .fragmentAbove(sizing.maxRegularPayload())
                .fragmentSize(sizing.fragmentSize())
                .maxFragments(sizing.maxFragments())
                .maxPacketSize(Math.max(sizing.fragmentSize() * sizing.maxFragments(), sizing.largestRegularPayload()))
                .sentPacketsBufferSize(sizing.sentPacketsBufferSize())
                .allowEmptyPayload(true)
                .fullAckBitsAtStart(true) // 4-byte headers from a connection's first packet
                .build();
        this.endpoint = new ReliableEndpoint(config, time, new PacketTransmitter() {
            @Override
            public void transmit(int sequence, byte[] data, int offset, int length) {
                hooks.transmit(data, offset, length);
            }

            @Override
            public void transmit(int sequence, ByteBuffer buffer, int offset, int length) {
                hooks.transmit(buffer, offset, length);
            }
        }, hooks::process);
        endpoint.setAckListener(hooks::acked);
        this.clock = time;
    }

    @Override
    public int sendPacket(byte[] data, int offset, int length) {
        return endpoint.sendPacket(data, offset, length);
    }

    @Override
    public int sendPacket(ByteBuffer buffer, int offset, int length) {
        return endpoint.sendPacket(buffer, offset, length);
    }

    @Override
    public void setRegularPayloadLimit(int bytes) {
        endpoint.setFragmentAbove(bytes);
    }

    @Override
    public void receivePacket(byte[] data, int offset, int length) {
        endpoint.receivePacket(data, offset, length);
    }

    @Override
    public void update(double time) {
        advanceTime(time);
        if (skippedUpdates < Integer.MAX_VALUE) {
            skippedUpdates++;
        }
    }

    @Override
    public void advanceTime(double time) {
        endpoint.advanceTime(time);
        if (time > clock) {
            clock = time;
        }
    }

    @Override
    public int nextPacketSequence() {
        return endpoint.nextPacketSequence();
    }

    @Override
    public MessageStats.PacketLayer stats() {
        ReliableEndpoint r = endpoint;
        if (skippedUpdates > 0) {
            r.update(clock, skippedUpdates);
            skippedUpdates = 0;
        }
        Map<String, Long> counters = new LinkedHashMap<>();
        for (PacketCounter pc : PacketCounter.values()) {
            counters.put(pc.referenceName(), r.counter(pc));
        }
        return new MessageStats.PacketLayer(r.rtt(), r.rttMin(), r.rttMax(), r.rttAvg(), r.jitterAvgVsMinRtt(),
                r.jitterMaxVsMinRtt(), r.jitterStddevVsAvgRtt(), r.packetLoss(), r.sentBandwidthKbps(),
                r.receivedBandwidthKbps(), r.ackedBandwidthKbps(), counters);
    }

    @Override
    public void setRttListener(@Nullable RttSampleListener listener) {
        endpoint.setRttListener(listener == null ? null : (sequence, rttMillis) -> listener.onRttSample(rttMillis));
    }
}
