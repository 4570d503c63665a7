package io.reliableudp.transport;

import io.reliableudp.connection.Connection;
import io.reliableudp.connection.Session;
import java.util.List;
import java.util.Map;

/** The message layer the node gives each connection, and the statistics read from it. */
final class Sessions {

    /** The message layer of every connection of a node started through the public API. */
    static final Session.Factory DEFAULT = InterimSession::new;

    private Sessions() {
    }

    static PeerStats stats(PeerState state, Connection c) {
        return new PeerStats(state, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, Map.of(), List.of(), false, 0,
                c.bytesSent(), c.bytesReceived());
    }
}
