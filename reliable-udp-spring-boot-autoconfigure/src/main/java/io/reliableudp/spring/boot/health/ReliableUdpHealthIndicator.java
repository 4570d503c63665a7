package io.reliableudp.spring.boot.health;

import io.reliableudp.DisconnectReason;
import io.reliableudp.spring.support.UdpAddresses;
import io.reliableudp.spring.core.UdpPeerDirectory;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.PeerStats;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * Health of one reliable-UDP node.
 *
 * <ul>
 *   <li>{@code DOWN}: the node's socket is closed.</li>
 *   <li>{@value #DEGRADED_CODE}: the socket is open but a configured peer
 *       ({@code reliable-udp.peers.<name>.address}) is not connected (never connected, connecting,
 *       timed out or disconnected), or its smoothed RTT or packet loss is above
 *       {@code reliable-udp.health.max-rtt} / {@code max-loss}.</li>
 *   <li>{@code UP}: the socket is open and every configured peer is connected within thresholds.</li>
 * </ul>
 * Unnamed peers (e.g. the clients of a server) never change the status; their count is a detail.
 * Details per configured peer: address, state, rtt (ms), loss (0..1), disconnect reason, problems.
 */
public final class ReliableUdpHealthIndicator implements HealthIndicator {

    /** Code of the {@link #DEGRADED} status. */
    public static final String DEGRADED_CODE = "DEGRADED";

    /** The node works but a configured peer is missing or out of thresholds. */
    public static final Status DEGRADED = new Status(DEGRADED_CODE,
            "a configured peer is not connected or exceeds the RTT/loss thresholds");

    private final ReliableUdpNode node;
    private final UdpPeerDirectory names;
    private final Duration maxRtt;
    private final double maxLoss;
    private final boolean expectEveryConfiguredPeer;
    private final Map<String, Peer> lastSeen = new ConcurrentHashMap<>();

    /**
     * Creates the indicator.
     *
     * @param node the node
     * @param names the configured peers
     * @param maxRtt highest acceptable smoothed RTT to a configured peer
     * @param maxLoss highest acceptable packet loss to a configured peer, ratio 0..1
     * @param expectEveryConfiguredPeer true when every configured peer must be connected to this node
     *     (the application has one node); false to expect only the configured peers this node has
     *     already been connected to (several nodes: a peer name belongs to the node that used it)
     */
    public ReliableUdpHealthIndicator(ReliableUdpNode node, UdpPeerDirectory names,
            Duration maxRtt, double maxLoss, boolean expectEveryConfiguredPeer) {
        this.node = node;
        this.names = names;
        this.maxRtt = maxRtt;
        this.maxLoss = maxLoss;
        this.expectEveryConfiguredPeer = expectEveryConfiguredPeer;
    }

    @Override
    public Health health() {
        if (!node.isOpen()) {
            return Health.down().withDetail("open", false).build();
        }
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("open", true);
        details.put("localAddress", UdpAddresses.format(node.localAddress()));
        int others = 0;
        for (Peer peer : node.peers()) {
            String name = names.tagName(peer);
            if (UdpPeerDirectory.OTHER.equals(name)) {
                others++;
            } else {
                lastSeen.put(name, peer);
            }
        }
        boolean degraded = false;
        Map<String, Object> peers = new LinkedHashMap<>();
        for (Map.Entry<String, InetSocketAddress> e : names.byName().entrySet()) {
            String name = e.getKey();
            if (!expectEveryConfiguredPeer && !lastSeen.containsKey(name)) {
                continue;
            }
            PeerHealth ph = check(name, e.getValue());
            degraded |= !ph.problems.isEmpty();
            peers.put(name, ph.details);
        }
        details.put("peers", peers);
        details.put("otherPeers", others);
        details.put("maxRttMillis", maxRtt.toNanos() / 1e6);
        details.put("maxLoss", maxLoss);
        return Health.status(degraded ? DEGRADED : Status.UP).withDetails(details).build();
    }

    private PeerHealth check(String name, InetSocketAddress address) {
        Map<String, Object> d = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        d.put("address", UdpAddresses.format(address));
        Peer peer = node.peer(address);
        if (peer == null) {
            Peer last = lastSeen.get(name);
            DisconnectReason reason = last == null ? null : last.disconnectReason();
            d.put("state", last == null ? "ABSENT" : PeerState.DISCONNECTED.name());
            if (reason != null) {
                d.put("disconnectReason", reason.name());
            }
            problems.add(last == null ? "never connected"
                    : "disconnected" + (reason == null ? "" : " (" + reason.name() + ")"));
        } else {
            PeerStats s = peer.stats();
            d.put("state", s.state().name());
            if (s.state() == PeerState.CONNECTED) {
                double rttMillis = round(s.rttMillis(), 100);
                double loss = round(Math.min(1.0, Math.max(0, s.packetLossPercent() / 100.0)), 10_000);
                d.put("rttMillis", rttMillis);
                d.put("loss", loss);
                double maxRttMillis = maxRtt.toNanos() / 1e6;
                if (rttMillis > maxRttMillis) {
                    problems.add("rtt " + rttMillis + " ms > max-rtt " + maxRttMillis + " ms");
                }
                if (loss > maxLoss) {
                    problems.add("loss " + loss + " > max-loss " + maxLoss);
                }
            } else {
                DisconnectReason reason = peer.disconnectReason();
                if (reason != null) {
                    d.put("disconnectReason", reason.name());
                }
                problems.add("not connected (" + s.state().name() + (reason == null ? "" : ", " + reason.name()) + ")");
            }
        }
        d.put("problems", problems);
        return new PeerHealth(d, problems);
    }

    private static double round(double value, double scale) {
        return Math.round(value * scale) / scale;
    }

    private record PeerHealth(Map<String, Object> details, List<String> problems) {
    }
}
