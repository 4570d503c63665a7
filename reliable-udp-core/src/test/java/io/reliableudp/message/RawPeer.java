package io.reliableudp.message;

import io.reliableudp.packet.ReliableConfig;
import io.reliableudp.packet.ReliableEndpoint;
import java.util.Arrays;

/** A bare packet-layer endpoint that wraps hand-made message frames into real packets, for tests. */
final class RawPeer {

    private final ReliableEndpoint endpoint;
    private byte[] last = new byte[0];

    RawPeer() {
        endpoint = new ReliableEndpoint(ReliableConfig.builder().allowEmptyPayload(true).fragmentAbove(8 * 1024).build(), 0,
                (seq, d, o, l) -> last = Arrays.copyOfRange(d, o, o + l), (seq, d, o, l) -> true);
    }

    /** The datagram carrying {@code payload[0..length)} as one packet. */
    byte[] packet(byte[] payload, int length) {
        endpoint.sendPacket(payload, 0, length);
        return last;
    }
}
