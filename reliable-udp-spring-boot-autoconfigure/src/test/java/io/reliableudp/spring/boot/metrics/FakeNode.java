package io.reliableudp.spring.boot.metrics;

import io.reliableudp.spring.core.UdpPeerDirectory;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.spring.core.UdpRttSampleSource;
import io.reliableudp.spring.core.UdpRttSampleSubscriber;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeStats;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/** A node whose peers and statistics the test drives; no socket. */
public class FakeNode implements ReliableUdpNode, UdpRttSampleSource {

    private final InetSocketAddress local;
    private final NodeConfig config;
    private final Map<InetSocketAddress, FakePeer> peers = new LinkedHashMap<>();
    private boolean open = true;
    private long datagrams;
    private long dropped;
    private long handshakeFailures;
    private long opened;
    private @Nullable LinkConditionerConfig linkConditioner;
    private final List<@Nullable LinkConditionerConfig> conditionerCalls = new ArrayList<>();
    private final List<UdpRttSampleSubscriber> rttSubscribers = new CopyOnWriteArrayList<>();

    public FakeNode(int port) {
        this.local = new InetSocketAddress("127.0.0.1", port);
        this.config = NodeConfig.builder().bindAddress(local).build();
    }

    /** Adds a connected peer at 127.0.0.1:port. */
    public synchronized FakePeer connect(int port) {
        FakePeer peer = new FakePeer(new InetSocketAddress("127.0.0.1", port), this);
        peers.put(peer.address(), peer);
        opened++;
        return peer;
    }

    /** The peer goes away (as after a timeout). */
    public synchronized void remove(FakePeer peer) {
        peers.remove(peer.address(), peer);
    }

    /** Node-level counters go up by n. */
    public synchronized void traffic(int n) {
        datagrams += n;
        dropped += n;
        handshakeFailures += n;
        for (FakePeer p : peers.values()) {
            p.traffic(n);
        }
    }

    /** The packet layer of that peer took RTT samples (as a real node's receive thread reports them). */
    public void rttSamples(FakePeer peer, float... millis) {
        for (float ms : millis) {
            for (UdpRttSampleSubscriber s : rttSubscribers) {
                s.onRttSample(peer, ms);
            }
        }
    }

    /** How many RTT subscribers are attached. */
    public int rttSubscriberCount() {
        return rttSubscribers.size();
    }

    @Override
    public void addRttSampleSubscriber(UdpRttSampleSubscriber subscriber) {
        rttSubscribers.add(subscriber);
    }

    @Override
    public void removeRttSampleSubscriber(UdpRttSampleSubscriber subscriber) {
        rttSubscribers.remove(subscriber);
    }

    public synchronized List<@Nullable LinkConditionerConfig> conditionerCalls() {
        return java.util.Collections.unmodifiableList(new ArrayList<>(conditionerCalls));
    }

    public synchronized @Nullable LinkConditionerConfig linkConditioner() {
        return linkConditioner;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public NodeConfig config() {
        return config;
    }

    @Override
    public CompletableFuture<Peer> connect(InetSocketAddress remote) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("fake"));
    }

    @Override
    public synchronized @Nullable Peer peer(InetSocketAddress address) {
        return peers.get(address);
    }

    @Override
    public synchronized Collection<Peer> peers() {
        return List.copyOf(peers.values());
    }

    @Override
    public synchronized NodeStats stats() {
        return new NodeStats(datagrams, datagrams, datagrams * 100, datagrams * 90,
                Map.of("malformed", dropped, "unknown_sender", dropped / 2),
                Map.of("denied", handshakeFailures), peers.size(), opened, datagrams / 2, datagrams * 10, dropped / 3,
                datagrams / 4, dropped / 4);
    }

    @Override
    public synchronized boolean isOpen() {
        return open;
    }

    @Override
    public synchronized void setLinkConditioner(@Nullable LinkConditionerConfig config) {
        linkConditioner = config;
        conditionerCalls.add(config);
    }

    @Override
    public CompletableFuture<Void> shutdown(Duration drainTimeout) {
        close();
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized void close() {
        open = false;
        peers.clear();
    }

    /**
     * A directory of names only, as the starter's node has from {@code reliable-udp.peers.*}.
     *
     * @param namesAndAddresses name, {@code host:port}, name, {@code host:port}...
     * @return the directory
     */
    public static UdpPeerDirectory names(String... namesAndAddresses) {
        java.util.Map<String, java.net.InetSocketAddress> m = new java.util.LinkedHashMap<>();
        for (int i = 0; i < namesAndAddresses.length; i += 2) {
            m.put(namesAndAddresses[i], io.reliableudp.spring.support.UdpAddresses.parse(namesAndAddresses[i + 1]));
        }
        return UdpPeerDirectory.of(m);
    }
}
