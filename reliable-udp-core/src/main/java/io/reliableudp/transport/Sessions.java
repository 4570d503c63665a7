package io.reliableudp.transport;

import io.reliableudp.connection.Connection;
import io.reliableudp.connection.MessageSession;
import io.reliableudp.connection.Session;
import io.reliableudp.message.MessageStats;
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
        MessageStats m = s == null ? null : s.stats();
        if (m == null) {
            return new PeerStats(state, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Map.of(), List.of(), false, 0,
                    c.bytesSent(), c.bytesReceived(), c.datagramBudget(), 0, 0);
        }
        MessageStats.PacketLayer p = m.packetLayer();
        return new PeerStats(state, p.rttMillis(), p.rttMinMillis(), p.rttMaxMillis(), p.rttAvgMillis(),
                p.jitterAvgVsMinMillis(), p.jitterMaxVsMinMillis(), p.jitterStddevMillis(), (float) m.packetLossPercent(),
                p.sentKbps(), p.receivedKbps(), p.ackedKbps(), Map.copyOf(p.counters()), m.channels(),
                m.congested(), m.sendRateHz(), c.bytesSent(), c.bytesReceived(), c.datagramBudget(),
                m.receiveMemoryBytes(), m.memoryRefusals());
    }
}
