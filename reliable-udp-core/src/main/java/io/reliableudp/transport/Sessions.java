package io.reliableudp.transport;

import io.reliableudp.connection.Connection;
import io.reliableudp.connection.MessageSession;
import io.reliableudp.connection.Session;

import io.reliableudp.message.ChannelStats;
import io.reliableudp.message.MessageEndpoint;
import io.reliableudp.packet.PacketCounter;
import io.reliableudp.packet.ReliableEndpoint;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The message layer the node gives each connection, and the statistics read from it. */
final class Sessions {

    /** The message layer of every connection of a node started through the public API. */
    static final Session.Factory DEFAULT = MessageSession.FACTORY;

    private Sessions() {
    }

    /** A snapshot of one connection (call under the peer's lock). */
    static PeerStats stats(PeerState state, Connection c) {
        Session s = c.session();
        MessageEndpoint m = s == null ? null : s.endpoint();
        if (m == null) {
            return new PeerStats(state, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Map.of(), List.of(), false, 0,
                    c.bytesSent(), c.bytesReceived());
        }
        ReliableEndpoint r = m.reliableEndpoint();
        Map<String, Long> counters = new LinkedHashMap<>();
        for (PacketCounter pc : PacketCounter.values()) {
            counters.put(pc.referenceName(), r.counter(pc));
        }
        List<ChannelStats> channels = new ArrayList<>(m.channelCount());
        for (int i = 0; i < m.channelCount(); i++) {
            channels.add(m.channelStats(i));
        }
        return new PeerStats(state, r.rtt(), r.rttMin(), r.rttMax(), r.rttAvg(), r.jitterAvgVsMinRtt(),
                r.jitterMaxVsMinRtt(), r.jitterStddevVsAvgRtt(), (float) m.packetLossPercent(), r.sentBandwidthKbps(),
                r.receivedBandwidthKbps(), r.ackedBandwidthKbps(), Map.copyOf(counters), List.copyOf(channels),
                m.congested(), m.sendRateHz(), c.bytesSent(), c.bytesReceived());
    }
}
