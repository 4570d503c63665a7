package io.reliableudp.demo.web;

import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.UdpRttSampleSource;
import io.reliableudp.spring.core.UdpRttSampleSubscriber;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeIdentity;
import io.reliableudp.transport.NodeStats;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerIdentity;
import io.reliableudp.transport.ReliableUdpNode;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * One demo node as the web application's beans see it: a stable {@link ReliableUdpNode} in front of
 * the node of the node's current child context. The actuator endpoint, the health indicator and the
 * meters are built once over these beans (bean name = the {@code node} tag: {@code station},
 * {@code rover-1}...), so a rover that is killed and restarted keeps its name: while it is down the
 * bean reports a closed node; after the restart it forwards to the new node, with the link conditioner
 * last set on the link and the RTT-sample subscribers moved over.
 */
public final class SwappableNode implements ReliableUdpNode, UdpRttSampleSource {

    private final String name;
    private final List<UdpRttSampleSubscriber> subscribers = new CopyOnWriteArrayList<>();
    private volatile ManagedReliableUdpNode delegate;
    private volatile @Nullable LinkConditionerConfig conditioner;
    private volatile boolean conditionerSet;

    SwappableNode(String name, ManagedReliableUdpNode first) {
        this.name = name;
        this.delegate = first;
    }

    /** The bean name and {@code node} tag. */
    public String name() {
        return name;
    }

    /** Points at a newly started node: re-applies the link's conditioner and moves the RTT subscribers. */
    synchronized void swap(ManagedReliableUdpNode next) {
        ManagedReliableUdpNode old = delegate;
        for (UdpRttSampleSubscriber s : subscribers) {
            old.removeRttSampleSubscriber(s);
            next.addRttSampleSubscriber(s);
        }
        if (conditionerSet) {
            next.setLinkConditioner(conditioner);
        }
        delegate = next;
    }

    /** Whether a conditioner was set through this bean (the endpoint or the fleet). */
    boolean conditionerSet() {
        return conditionerSet;
    }

    /** The node behind this bean now. */
    ManagedReliableUdpNode current() {
        return delegate;
    }

    /** The conditioner in force on this node's outgoing datagrams (null = none). */
    @Nullable LinkConditionerConfig conditioner() {
        return conditionerSet ? conditioner : delegate.config().linkConditioner();
    }

    @Override
    public InetSocketAddress localAddress() {
        return delegate.localAddress();
    }

    /** The current node's settings, with the conditioner in force on the link (the endpoint's read shows it). */
    @Override
    public NodeConfig config() {
        NodeConfig c = delegate.config();
        return conditionerSet ? c.toBuilder().linkConditioner(conditioner).build() : c;
    }

    @Override
    public CompletableFuture<Peer> connect(InetSocketAddress remote) {
        return delegate.connect(remote);
    }

    @Override
    public @Nullable Peer peer(InetSocketAddress address) {
        return delegate.peer(address);
    }

    @Override
    public Collection<Peer> peers() {
        return delegate.peers();
    }

    @Override
    public NodeStats stats() {
        return delegate.stats();
    }

    @Override
    public boolean isOpen() {
        return delegate.isOpen();
    }

    @Override
    public void pauseReceiving(int channel) {
        delegate.pauseReceiving(channel);
    }

    @Override
    public void resumeReceiving(int channel) {
        delegate.resumeReceiving(channel);
    }

    @Override
    public void allowedPeers(Collection<PeerIdentity> peers) {
        delegate.allowedPeers(peers);
    }

    @Override
    public void identity(NodeIdentity identity) {
        delegate.identity(identity);
    }

    @Override
    public synchronized void setLinkConditioner(@Nullable LinkConditionerConfig config) {
        conditioner = config;
        conditionerSet = true;
        delegate.setLinkConditioner(config);
    }

    @Override
    public CompletableFuture<Void> shutdown(Duration drainTimeout) {
        return delegate.shutdown(drainTimeout);
    }

    /** The child contexts own their nodes and close them; closing the bean view does nothing. */
    @Override
    public void close() {
    }

    @Override
    public synchronized void addRttSampleSubscriber(UdpRttSampleSubscriber subscriber) {
        subscribers.add(subscriber);
        delegate.addRttSampleSubscriber(subscriber);
    }

    @Override
    public synchronized void removeRttSampleSubscriber(UdpRttSampleSubscriber subscriber) {
        subscribers.remove(subscriber);
        delegate.removeRttSampleSubscriber(subscriber);
    }
}
