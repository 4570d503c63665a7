package io.reliableudp.spring.boot.metrics;

import io.reliableudp.spring.core.UdpPeerDirectory;
import io.micrometer.core.instrument.Tags;
import io.reliableudp.DropReason;
import io.reliableudp.HandshakeFailure;
import io.reliableudp.message.ChannelStats;
import io.reliableudp.transport.NodeStats;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.PeerStats;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Turns the core's stats snapshots into (meter, extra tags) -> value entries, in base units.
 * Stateless; runs once per refresh, so it favours clarity over allocation.
 */
final class StatsFlattener {

    /** Most distinct reasons per node (per map), and packet counter names per peer; more fold into "other". */
    static final int MAX_LABEL_VALUES = 32;

    private static final Pattern SAFE = Pattern.compile("[a-z0-9_]{1,64}");

    /** A meter with its extra tags (beyond node and peer). */
    record Key(MeterSpec spec, Tags tags) {
        static Key of(MeterSpec spec) {
            return new Key(spec, Tags.empty());
        }

        static Key of(MeterSpec spec, String tag, String value) {
            return new Key(spec, Tags.of(tag, value));
        }
    }

    /** Values of one source: counters and gauges. */
    static final class Values {
        final Map<Key, Double> counters = new HashMap<>();
        final Map<Key, Double> gauges = new HashMap<>();

        void counter(Key key, double value) {
            counters.merge(key, value, Double::sum);
        }

        void gauge(Key key, double value) {
            gauges.put(key, value);
        }
    }

    private StatsFlattener() {
    }

    static Values node(NodeStats s, boolean open) {
        Values v = new Values();
        v.gauge(Key.of(MeterSpec.NODE_OPEN), open ? 1 : 0);
        v.gauge(Key.of(MeterSpec.CONNECTIONS), s.connections());
        v.counter(Key.of(MeterSpec.CONNECTIONS_OPENED), s.connectionsOpened());
        v.counter(Key.of(MeterSpec.DATAGRAMS, "direction", "sent"), s.datagramsSent());
        v.counter(Key.of(MeterSpec.DATAGRAMS, "direction", "received"), s.datagramsReceived());
        v.counter(Key.of(MeterSpec.BYTES, "direction", "sent"), s.bytesSent());
        v.counter(Key.of(MeterSpec.BYTES, "direction", "received"), s.bytesReceived());
        byReason(v, MeterSpec.DROPPED, s.datagramsDropped(), DROP_REASONS);
        byReason(v, MeterSpec.HANDSHAKE_FAILURES, s.handshakeFailures(), HANDSHAKE_FAILURES);
        v.counter(Key.of(MeterSpec.LISTENER_ERRORS), s.listenerErrors());
        v.gauge(Key.of(MeterSpec.RECEIVE_MEMORY), s.receiveMemoryBytes());
        v.counter(Key.of(MeterSpec.RECEIVE_REFUSALS), s.memoryRefusals());
        v.counter(Key.of(MeterSpec.MIGRATIONS, "outcome", "moved"), s.migrations());
        v.counter(Key.of(MeterSpec.MIGRATIONS, "outcome", "failed"), s.pathValidationsFailed());
        return v;
    }

    /** Every reason the core names, registered at 0 from the start so that an alert sees a series, not none. */
    private static final List<String> DROP_REASONS = Arrays.stream(DropReason.values()).map(DropReason::key).toList();
    private static final List<String> HANDSHAKE_FAILURES = Arrays.stream(HandshakeFailure.values()).map(HandshakeFailure::key).toList();

    private static void byReason(Values v, MeterSpec spec, Map<String, Long> counts, List<String> known) {
        int distinct = 0;
        Map<String, Long> all = new TreeMap<>();
        for (String k : known) {
            all.put(k, 0L);
        }
        all.putAll(counts);
        for (Map.Entry<String, Long> e : all.entrySet()) {
            String reason = label(e.getKey());
            if (++distinct > MAX_LABEL_VALUES) {
                reason = UdpPeerDirectory.OTHER;
            }
            v.counter(Key.of(spec, "reason", reason), e.getValue());
        }
    }

    /** One peer's values; RTT, jitter and loss only while it is connected (they mean nothing before). */
    static Values peer(PeerStats s) {
        Values v = new Values();
        boolean connected = s.state() == PeerState.CONNECTED;
        v.gauge(Key.of(MeterSpec.PEER_CONNECTED), connected ? 1 : 0);
        if (connected) {
            v.gauge(Key.of(MeterSpec.RTT), s.rttMillis() / 1000.0);
            v.gauge(Key.of(MeterSpec.RTT_MIN), s.rttMinMillis() / 1000.0);
            v.gauge(Key.of(MeterSpec.RTT_MAX), s.rttMaxMillis() / 1000.0);
            v.gauge(Key.of(MeterSpec.JITTER), s.jitterAvgVsMinMillis() / 1000.0);
            v.gauge(Key.of(MeterSpec.JITTER_MAX), s.jitterMaxVsMinMillis() / 1000.0);
            v.gauge(Key.of(MeterSpec.JITTER_STDDEV), s.jitterStddevMillis() / 1000.0);
            v.gauge(Key.of(MeterSpec.LOSS), lossRatio(s.packetLossPercent()));
            v.gauge(Key.of(MeterSpec.BANDWIDTH, "direction", "sent"), kbpsToBytesPerSecond(s.sentKbps()));
            v.gauge(Key.of(MeterSpec.BANDWIDTH, "direction", "received"), kbpsToBytesPerSecond(s.receivedKbps()));
            v.gauge(Key.of(MeterSpec.BANDWIDTH, "direction", "acked"), kbpsToBytesPerSecond(s.ackedKbps()));
        }
        v.gauge(Key.of(MeterSpec.CONGESTED), s.congested() ? 1 : 0);
        v.gauge(Key.of(MeterSpec.SEND_RATE), s.sendRateHz());
        v.gauge(Key.of(MeterSpec.PEER_RECEIVE_MEMORY), s.receiveMemoryBytes());
        v.counter(Key.of(MeterSpec.PEER_RECEIVE_REFUSALS), s.memoryRefusals());
        v.counter(Key.of(MeterSpec.PEER_BYTES, "direction", "sent"), s.bytesSent());
        v.counter(Key.of(MeterSpec.PEER_BYTES, "direction", "received"), s.bytesReceived());
        int distinct = 0;
        for (Map.Entry<String, Long> e : new TreeMap<>(s.packetCounters()).entrySet()) {
            String name = label(e.getKey());
            if (name.startsWith("num_")) {
                name = name.substring("num_".length()); // the C library's counter names: num_packets_sent...
            }
            if (++distinct > MAX_LABEL_VALUES) {
                v.counter(Key.of(MeterSpec.PACKETS, "event", UdpPeerDirectory.OTHER), e.getValue());
            } else if (name.startsWith("fragments_")) {
                v.counter(Key.of(MeterSpec.FRAGMENTS, "event", name.substring("fragments_".length())), e.getValue());
            } else if (name.startsWith("packets_")) {
                v.counter(Key.of(MeterSpec.PACKETS, "event", name.substring("packets_".length())), e.getValue());
            } else {
                v.counter(Key.of(MeterSpec.PACKETS, "event", name), e.getValue());
            }
        }
        for (ChannelStats c : s.channels()) {
            String channel = Integer.toString(c.channel());
            message(v, channel, "sent", c.messagesSent());
            message(v, channel, "acked", c.messagesAcked());
            message(v, channel, "resent", c.messagesResent());
            message(v, channel, "delivered", c.messagesReceived());
            message(v, channel, "dropped", c.messagesDropped());
            message(v, channel, "duplicate", c.duplicatesDropped());
            message(v, channel, "expired", c.messagesExpired());
            message(v, channel, "expired_received", c.receivedExpired());
            message(v, channel, "skipped", c.messagesSkipped());
            v.gauge(new Key(MeterSpec.QUEUE_MESSAGES, Tags.of("channel", channel)), c.queuedMessages());
            v.gauge(new Key(MeterSpec.QUEUE_BYTES, Tags.of("channel", channel)), c.queuedBytes());
        }
        return v;
    }

    private static void message(Values v, String channel, String event, long count) {
        v.counter(new Key(MeterSpec.MESSAGES, Tags.of("channel", channel, "event", event)), count);
    }

    /** Percent 0..100 (as the packet layer computes it) to a ratio 0..1, clamped. */
    static double lossRatio(float percent) {
        if (!(percent > 0)) {
            return 0;
        }
        return Math.min(1.0, percent / 100.0);
    }

    /** Kilobits per second (1000 bits) to bytes per second. */
    static double kbpsToBytesPerSecond(float kbps) {
        return kbps * 1000.0 / 8.0;
    }

    /** A tag value from a name the core chose: lower case, [a-z0-9_], else "invalid". */
    static String label(String raw) {
        String s = raw.toLowerCase(Locale.ROOT).replace('-', '_').replace('.', '_');
        return SAFE.matcher(s).matches() ? s : "invalid_name";
    }
}
