package io.reliableudp.spring.boot.metrics;

import io.reliableudp.DisconnectReason;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.ChannelStats;
import io.reliableudp.transport.Delivery;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerState;
import io.reliableudp.transport.PeerStats;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A peer whose statistics the test drives. Two channels: 0 reliable-ordered, 1 unreliable.
 * Thread-safe enough for tests (synchronized).
 */
public final class FakePeer implements Peer {

    /** The packet counters the core reports: the 11 of the C library reliable, in its order, then its extras. */
    public static final List<String> PACKET_COUNTERS = List.of("num_packets_sent", "num_packets_received",
            "num_packets_acked", "num_packets_stale", "num_packets_invalid", "num_packets_too_large_to_send",
            "num_packets_too_large_to_receive", "num_fragments_sent", "num_fragments_received", "num_fragments_invalid",
            "num_packets_duplicate", "num_empty_payloads_not_sent", "num_empty_datagrams_received",
            "num_packets_rejected_by_processor", "num_acks_not_listed");

    private final InetSocketAddress address;
    private final @Nullable FakeNode node;
    private PeerState state = PeerState.CONNECTED;
    private @Nullable DisconnectReason reason;
    private float rttMillis = 10;
    private float lossPercent;
    private float kbps = 100;
    private boolean congested;
    private long bytesSent;
    private long bytesReceived;
    private final Map<String, Long> counters = new LinkedHashMap<>();
    private final long[][] channelCounts = new long[2][9];
    private final int[] queued = new int[2];
    private int disconnects;

    public FakePeer(InetSocketAddress address, @Nullable FakeNode node) {
        this.address = address;
        this.node = node;
        PACKET_COUNTERS.forEach(c -> counters.put(c, 0L));
    }

    /** Every counter goes up by n (n packets both ways, n messages per channel...). */
    public synchronized FakePeer traffic(int n) {
        counters.replaceAll((k, v) -> v + n);
        bytesSent += 100L * n;
        bytesReceived += 90L * n;
        for (long[] ch : channelCounts) {
            for (int i = 0; i < ch.length; i++) {
                ch[i] += n;
            }
        }
        queued[0] += 1;
        queued[1] += 2;
        return this;
    }

    public synchronized FakePeer rtt(float millis) {
        this.rttMillis = millis;
        return this;
    }

    public synchronized FakePeer loss(float percent) {
        this.lossPercent = percent;
        return this;
    }

    public synchronized FakePeer kbps(float kbps) {
        this.kbps = kbps;
        return this;
    }

    public synchronized FakePeer congested(boolean congested) {
        this.congested = congested;
        return this;
    }

    public synchronized FakePeer state(PeerState state, @Nullable DisconnectReason reason) {
        this.state = state;
        this.reason = reason;
        return this;
    }

    public synchronized int disconnects() {
        return disconnects;
    }

    @Override
    public InetSocketAddress address() {
        return address;
    }

    @Override
    public synchronized PeerState state() {
        return state;
    }

    @Override
    public synchronized @Nullable DisconnectReason disconnectReason() {
        return reason;
    }

    @Override
    public CompletableFuture<Delivery> send(int channel, byte[] payload) {
        return CompletableFuture.completedFuture(new Delivery(address, channel, 0, true));
    }

    @Override
    public void flush() {
    }

    @Override
    public void disconnect() {
        synchronized (this) {
            disconnects++;
            state = PeerState.DISCONNECTED;
            reason = DisconnectReason.CLOSED_LOCALLY;
        }
        if (node != null) {
            node.remove(this);
        }
    }

    @Override
    public synchronized PeerStats stats() {
        List<ChannelStats> channels = new ArrayList<>();
        DeliveryMode[] modes = {DeliveryMode.RELIABLE_ORDERED, DeliveryMode.UNRELIABLE};
        for (int i = 0; i < 2; i++) {
            long[] c = channelCounts[i];
            channels.add(new ChannelStats(i, modes[i], c[0], c[1], c[2], c[3], c[4], c[5], queued[i], queued[i] * 64L, c[6], c[7], c[8]));
        }
        return new PeerStats(state, rttMillis, rttMillis * 0.8f, rttMillis * 1.5f, rttMillis * 1.1f,
                rttMillis * 0.1f, rttMillis * 0.4f, rttMillis * 0.05f, lossPercent, kbps, kbps * 0.9f, kbps * 0.8f,
                Map.copyOf(counters), List.copyOf(channels), congested, congested ? 30 : 60, bytesSent, bytesReceived, 1200, bytesReceived / 4, bytesSent);
    }
}
