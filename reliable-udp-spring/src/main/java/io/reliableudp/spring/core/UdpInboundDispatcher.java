package io.reliableudp.spring.core;

import io.reliableudp.DisconnectReason;
import io.reliableudp.spring.support.InboundUdpMessage;
import io.reliableudp.spring.support.UdpChannel;
import io.reliableudp.spring.support.EnvelopeCodec;
import io.reliableudp.transport.NodeListener;
import io.reliableudp.transport.Peer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEventPublisher;

/**
 * The inbound fan-out of one node, on its receive thread: each message goes to the
 * {@link InboundUdpMessageSubscriber}s that accept it (listener containers, through them the Integration
 * adapters), a reply to a request to the reply subscriber only (the {@link UdpReplyCorrelator}; a peer
 * cannot make a listener take a reply), every RTT sample to
 * the {@link UdpRttSampleSubscriber}s, and connects and disconnects become application events (published
 * off the receive thread) and reconnects of named peers ({@link UdpPeerDirectory}).
 *
 * <p>Nothing here blocks or converts: subscribers hand the message to their executors. A subscriber
 * that throws is counted ({@link #subscriberErrors()}) and logged; a message that no subscriber takes is
 * counted ({@link #unhandledMessages()}) and logged at debug level.
 */
public final class UdpInboundDispatcher implements NodeListener {

    private static final Log logger = LogFactory.getLog(UdpInboundDispatcher.class);

    private final Object eventSource;
    private final UdpChannels channels;
    private final UdpPeerDirectory directory;
    private final List<InboundUdpMessageSubscriber> subscribers = new CopyOnWriteArrayList<>();
    /** Copy on write, read with an index loop on the receive thread (no iterator per sample). */
    private volatile UdpRttSampleSubscriber[] rttSubscribers = new UdpRttSampleSubscriber[0];
    private final Object rttSubscribersLock = new Object();
    private final LongAdder unhandledMessages = new LongAdder();
    private final LongAdder subscriberErrors = new LongAdder();
    private volatile @Nullable InboundUdpMessageSubscriber replySubscriber;
    private volatile @Nullable ApplicationEventPublisher eventPublisher;
    private volatile Executor eventExecutor = Runnable::run;

    /**
     * Creates the dispatcher.
     *
     * @param eventSource the source of the published events (the managed node)
     * @param channels the channel table
     * @param directory the peer names, told of disconnects
     */
    public UdpInboundDispatcher(Object eventSource, UdpChannels channels, UdpPeerDirectory directory) {
        this.eventSource = Objects.requireNonNull(eventSource, "eventSource");
        this.channels = Objects.requireNonNull(channels, "channels");
        this.directory = Objects.requireNonNull(directory, "directory");
    }

    /**
     * Sets where connect/disconnect events are published.
     *
     * @param publisher the publisher (the application context), or null for none
     * @param executor runs the publishing (the listener executor), never the receive thread's work
     */
    public void setEventPublisher(@Nullable ApplicationEventPublisher publisher, Executor executor) {
        this.eventExecutor = Objects.requireNonNull(executor, "executor");
        this.eventPublisher = publisher;
    }

    /**
     * Sets who takes replies to requests (envelopes with the reply flag): the node's
     * {@link UdpReplyCorrelator}. Replies never reach the listener subscribers.
     *
     * @param subscriber the reply subscriber, or null to count replies as unhandled
     */
    public void setReplySubscriber(@Nullable InboundUdpMessageSubscriber subscriber) {
        this.replySubscriber = subscriber;
    }

    /**
     * Adds a subscriber for inbound messages.
     *
     * @param subscriber the subscriber
     */
    public void addSubscriber(InboundUdpMessageSubscriber subscriber) {
        subscribers.add(Objects.requireNonNull(subscriber, "subscriber"));
    }

    /**
     * Removes a subscriber.
     *
     * @param subscriber the subscriber
     */
    public void removeSubscriber(InboundUdpMessageSubscriber subscriber) {
        subscribers.remove(subscriber);
    }

    /**
     * Adds a subscriber for RTT samples.
     *
     * @param subscriber the subscriber
     */
    public void addRttSampleSubscriber(UdpRttSampleSubscriber subscriber) {
        Objects.requireNonNull(subscriber, "subscriber");
        synchronized (rttSubscribersLock) {
            UdpRttSampleSubscriber[] old = rttSubscribers;
            UdpRttSampleSubscriber[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = subscriber;
            rttSubscribers = grown;
        }
    }

    /**
     * Removes an RTT subscriber (no effect when it was not added).
     *
     * @param subscriber the subscriber
     */
    public void removeRttSampleSubscriber(UdpRttSampleSubscriber subscriber) {
        synchronized (rttSubscribersLock) {
            UdpRttSampleSubscriber[] old = rttSubscribers;
            for (int i = 0; i < old.length; i++) {
                if (old[i] == subscriber) {
                    UdpRttSampleSubscriber[] shrunk = new UdpRttSampleSubscriber[old.length - 1];
                    System.arraycopy(old, 0, shrunk, 0, i);
                    System.arraycopy(old, i + 1, shrunk, i, old.length - i - 1);
                    rttSubscribers = shrunk;
                    return;
                }
            }
        }
    }

    /** Messages that no subscriber accepted (logged at debug level and dropped). */
    public long unhandledMessages() {
        return unhandledMessages.sum();
    }

    /** Exceptions thrown by subscribers on the receive thread (each was logged). */
    public long subscriberErrors() {
        return subscriberErrors.sum();
    }

    @Override
    public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
        onMessage(peer, channel, messageId, payload, -1);
    }

    @Override
    public void onMessage(Peer peer, int channel, int messageId, byte[] payload, int ageMillis) {
        UdpChannel ch = channels.get(channel);
        if (ch == null) {
            unhandledMessages.increment();
            return;
        }
        InboundUdpMessage message = new InboundUdpMessage(peer, directory.nameOf(peer.address()), ch, messageId, payload,
                ageMillis);
        if (EnvelopeCodec.isReply(payload)) {
            InboundUdpMessageSubscriber replies = replySubscriber;
            if (replies == null) {
                unhandledMessages.increment();
                logger.debug("a reply from " + peer.address() + " arrived with nobody to take it; dropped");
                return;
            }
            try {
                replies.onMessage(message);
            } catch (RuntimeException e) {
                subscriberErrors.increment();
                logger.error("the reply subscriber failed on a reply from " + peer.address(), e);
            }
            return;
        }
        boolean handled = false;
        for (InboundUdpMessageSubscriber s : subscribers) {
            try {
                if (s.accepts(message)) {
                    handled = true;
                    s.onMessage(message);
                }
            } catch (RuntimeException e) {
                subscriberErrors.increment();
                logger.error("subscriber " + s + " failed on a message from " + peer.address(), e);
            }
        }
        if (!handled) {
            unhandledMessages.increment();
            if (logger.isDebugEnabled()) {
                logger.debug("no listener for a message from " + peer.address() + " on channel '" + ch.name() + "'; dropped");
            }
            answerNoListener(peer, channel, payload);
        }
    }

    /**
     * A sender that waits until a listener handled its message (ack mode PROCESSED) learns at once that
     * no listener took it, instead of waiting for its reply timeout. Requests are not answered here:
     * their senders time out, as documented for a request no listener takes.
     */
    private static void answerNoListener(Peer peer, int channel, byte[] payload) {
        if (!EnvelopeCodec.isAckRequested(payload)) {
            return;
        }
        try {
            long correlationId = EnvelopeCodec.decode(payload).correlationId();
            byte[] reply = EnvelopeCodec.encode(null, Map.of(), new byte[0], EnvelopeCodec.FLAG_REPLY | EnvelopeCodec.FLAG_ERROR,
                    correlationId, RemoteListenerException.Category.NO_LISTENER.name());
            peer.send(channel, reply);
        } catch (RuntimeException e) {
            logger.debug("could not tell " + peer.address() + " that no listener took its message: " + e);
        }
    }

    @Override
    public void onRttSample(Peer peer, float rttMillis) {
        UdpRttSampleSubscriber[] subs = rttSubscribers;
        for (int i = 0; i < subs.length; i++) {
            try {
                subs[i].onRttSample(peer, rttMillis);
            } catch (RuntimeException e) {
                subscriberErrors.increment();
                logger.error("RTT subscriber " + subs[i] + " failed on a sample of " + peer.address(), e);
            }
        }
    }

    @Override
    public void onConnected(Peer peer) {
        String name = directory.nameOf(peer.address());
        logger.info("reliable-udp peer connected: " + (name == null ? "" : name + " ") + peer.address());
        publish(new UdpPeerConnectedEvent(eventSource, peer, name));
    }

    @Override
    public void onDisconnected(Peer peer, DisconnectReason reason) {
        String name = directory.nameOf(peer.address());
        logger.info("reliable-udp peer disconnected: " + (name == null ? "" : name + " ") + peer.address() + " (" + reason + ")");
        publish(new UdpPeerDisconnectedEvent(eventSource, peer, name, reason));
        directory.onDisconnected(peer, reason);
    }

    @Override
    public void onPeerMigrated(Peer peer, java.net.InetSocketAddress from, java.net.InetSocketAddress to) {
        logger.info("reliable-udp peer migrated: " + from + " -> " + to);
        publish(new UdpPeerMigratedEvent(eventSource, peer, from, to));
    }

    private void publish(Object event) {
        ApplicationEventPublisher publisher = eventPublisher;
        if (publisher == null) {
            return;
        }
        try {
            eventExecutor.execute(() -> {
                try {
                    publisher.publishEvent(event);
                } catch (RuntimeException e) {
                    // e.g. a disconnect event racing the context's close: never let it escape the thread
                    logger.debug("could not publish " + event + ": " + e);
                }
            });
        } catch (RuntimeException e) {
            logger.debug("could not publish " + event + ": " + e);
        }
    }
}
