package io.reliableudp.spring.boot.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The catalogue of meters: one entry per meter name (the table in {@code docs/metrics.md} lists the
 * same). Package-private: the names are the public contract, not this class.
 *
 * @param name Micrometer name
 * @param type how it is registered
 * @param baseUnit Micrometer base unit, or null
 * @param merge how values of several peers sharing one {@code peer} tag ({@value io.reliableudp.spring.core.UdpPeerDirectory#OTHER}) combine
 * @param description the meter's description
 */
record MeterSpec(String name, Type type, @Nullable String baseUnit, Merge merge, String description) {

    /** How a meter is registered. */
    enum Type {
        /** {@code FunctionCounter}: monotonic. */
        COUNTER,
        /** {@code Gauge}. */
        GAUGE,
        /** {@code TimeGauge} in seconds (values are kept in seconds). */
        TIME_GAUGE,
        /** {@code Timer}: one sample per live peer per refresh. */
        TIMER
    }

    /** How values of several peers in one group combine. */
    enum Merge {
        SUM, MEAN, MIN, MAX
    }

    static final Map<String, MeterSpec> ALL = new LinkedHashMap<>();

    // node level: tags node (+ direction / reason)
    static final MeterSpec NODE_OPEN = add("reliable.udp.node.open", Type.GAUGE, null, Merge.SUM,
            "1 while the node's socket is open, else 0");
    static final MeterSpec CONNECTIONS = add("reliable.udp.connections", Type.GAUGE, null, Merge.SUM,
            "Connections of the node right now (connecting or connected)");
    static final MeterSpec CONNECTIONS_OPENED = add("reliable.udp.connections.opened", Type.COUNTER, null, Merge.SUM,
            "Connections that completed a handshake");
    static final MeterSpec DATAGRAMS = add("reliable.udp.datagrams", Type.COUNTER, null, Merge.SUM,
            "Datagrams written to (direction=sent) or read from (direction=received) the socket");
    static final MeterSpec BYTES = add("reliable.udp.bytes", Type.COUNTER, "bytes", Merge.SUM,
            "Bytes written to or read from the socket");
    static final MeterSpec DROPPED = add("reliable.udp.datagrams.dropped", Type.COUNTER, null, Merge.SUM,
            "Datagrams the node rejected, by reason");
    static final MeterSpec HANDSHAKE_FAILURES = add("reliable.udp.handshake.failures", Type.COUNTER, null, Merge.SUM,
            "Failed handshakes, by reason");
    static final MeterSpec LISTENER_ERRORS = add("reliable.udp.listener.errors", Type.COUNTER, null, Merge.SUM,
            "Exceptions thrown by the application's listeners");
    static final MeterSpec RECEIVE_MEMORY = add("reliable.udp.receive.memory", Type.GAUGE, "bytes", Merge.SUM,
            "Bytes the node's connections hold for their peers (reassembly, early ordered arrivals, messages of paused channels)");
    static final MeterSpec RECEIVE_REFUSALS = add("reliable.udp.receive.refusals", Type.COUNTER, null, Merge.SUM,
            "Received packets refused (not acknowledged) because they would have passed a receive memory limit");

    static final MeterSpec MIGRATIONS = add("reliable.udp.migrations", Type.COUNTER, null, Merge.SUM,
            "Connections moved to a new, validated address of their peer (outcome=moved), or path validations"
                    + " that went unanswered (outcome=failed)");

    // peer level: tags node, peer (+ direction / event)
    static final MeterSpec PEER_CONNECTED = add("reliable.udp.peer.connected", Type.GAUGE, null, Merge.SUM,
            "Peers of this name in state CONNECTED (0 or 1 for a named peer)");
    static final MeterSpec RTT = add("reliable.udp.rtt", Type.TIME_GAUGE, "seconds", Merge.MEAN,
            "Smoothed round-trip time");
    static final MeterSpec RTT_MIN = add("reliable.udp.rtt.min", Type.TIME_GAUGE, "seconds", Merge.MIN,
            "Minimum round-trip time over the RTT history");
    static final MeterSpec RTT_MAX = add("reliable.udp.rtt.max", Type.TIME_GAUGE, "seconds", Merge.MAX,
            "Maximum round-trip time over the RTT history");
    static final MeterSpec RTT_SAMPLES = add("reliable.udp.rtt.samples", Type.TIMER, "seconds", Merge.SUM,
            "Distribution of the round-trip time samples of the packet layer, one per acknowledged packet");
    static final MeterSpec JITTER = add("reliable.udp.jitter", Type.TIME_GAUGE, "seconds", Merge.MEAN,
            "Jitter: mean of (RTT sample - minimum RTT)");
    static final MeterSpec JITTER_MAX = add("reliable.udp.jitter.max", Type.TIME_GAUGE, "seconds", Merge.MAX,
            "Jitter: maximum of (RTT sample - minimum RTT)");
    static final MeterSpec JITTER_STDDEV = add("reliable.udp.jitter.stddev", Type.TIME_GAUGE, "seconds", Merge.MEAN,
            "Standard deviation of the RTT samples");
    static final MeterSpec LOSS = add("reliable.udp.packet.loss", Type.GAUGE, "ratio", Merge.MEAN,
            "Smoothed packet loss, 0..1");
    static final MeterSpec BANDWIDTH = add("reliable.udp.bandwidth", Type.GAUGE, "bytes.per.second", Merge.SUM,
            "Smoothed bandwidth sent, received and acknowledged by the peer (packet layer, headers included)");
    static final MeterSpec PEER_BYTES = add("reliable.udp.peer.bytes", Type.COUNTER, "bytes", Merge.SUM,
            "Datagram bytes sent to or received from the peer");
    static final MeterSpec PACKETS = add("reliable.udp.packets", Type.COUNTER, null, Merge.SUM,
            "Packet-layer counters (the counters of the C library reliable), by event");
    static final MeterSpec FRAGMENTS = add("reliable.udp.fragments", Type.COUNTER, null, Merge.SUM,
            "Fragment counters of the packet layer, by event");
    static final MeterSpec CONGESTED = add("reliable.udp.congested", Type.GAUGE, null, Merge.SUM,
            "Peers of this name in congestion avoidance (1 = bad mode, lower send rate)");
    static final MeterSpec SEND_RATE = add("reliable.udp.send.rate", Type.GAUGE, "packets.per.second", Merge.SUM,
            "Current packet send rate to the peer");
    static final MeterSpec PEER_RECEIVE_MEMORY = add("reliable.udp.peer.receive.memory", Type.GAUGE, "bytes", Merge.SUM,
            "Bytes this node holds for the peer (reassembly, early ordered arrivals, messages of paused channels)");
    static final MeterSpec PEER_RECEIVE_REFUSALS = add("reliable.udp.peer.receive.refusals", Type.COUNTER, null, Merge.SUM,
            "Packets of the peer refused (not acknowledged) because they would have passed a receive memory limit");

    // channel level: tags node, peer, channel (+ event)
    static final MeterSpec MESSAGES = add("reliable.udp.messages", Type.COUNTER, null, Merge.SUM,
            "Messages per channel: sent, acked, resent, delivered, dropped, duplicate");
    static final MeterSpec QUEUE_MESSAGES = add("reliable.udp.queue.messages", Type.GAUGE, null, Merge.SUM,
            "Messages waiting to be sent or acknowledged");
    static final MeterSpec QUEUE_BYTES = add("reliable.udp.queue.bytes", Type.GAUGE, "bytes", Merge.SUM,
            "Payload bytes waiting to be sent or acknowledged");

    private static MeterSpec add(String name, Type type, @Nullable String unit, Merge merge, String description) {
        MeterSpec spec = new MeterSpec(name, type, unit, merge, description);
        ALL.put(name, spec);
        return spec;
    }
}
