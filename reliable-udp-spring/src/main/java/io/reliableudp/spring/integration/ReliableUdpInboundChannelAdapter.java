package io.reliableudp.spring.integration;

import io.reliableudp.spring.core.InboundUdpMessage;
import io.reliableudp.spring.core.InboundUdpMessageSubscriber;
import io.reliableudp.spring.annotation.UdpListenerConfigUtils;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.support.Envelope;
import io.reliableudp.spring.support.EnvelopeCodec;
import io.reliableudp.spring.support.EnvelopeException;
import io.reliableudp.spring.support.InboundMessages;
import io.reliableudp.spring.support.KeyedSerialExecutor;
import io.reliableudp.spring.support.ReliableUdpMessageConverters;
import java.net.InetSocketAddress;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.springframework.integration.endpoint.MessageProducerSupport;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.messaging.support.MessageBuilder;

/**
 * Produces a Spring Integration message for every message the node receives on the given channels from
 * the given peers. Headers are those of {@link io.reliableudp.spring.support.ReliableUdpHeaders} plus the
 * ones the sender carried. The payload is the envelope body ({@code byte[]}), or converted to
 * {@link #setPayloadType(Class) a payload type}. Messages are sent to the output channel one at a time
 * per (peer, channel), in the order received, on the executor (virtual threads by default).
 */
public class ReliableUdpInboundChannelAdapter extends MessageProducerSupport implements InboundUdpMessageSubscriber {

    private final ManagedReliableUdpNode node;
    private List<String> channelNames = List.of();
    private List<String> peerFilter = List.of();
    private Set<Integer> channels = Set.of();
    private final Set<String> peerNames = new HashSet<>();
    private final Set<InetSocketAddress> peerAddresses = new HashSet<>();
    private Class<?> payloadType = byte[].class;
    private @Nullable MessageConverter messageConverter;
    private @Nullable Executor executor;
    private @Nullable KeyedSerialExecutor serial;
    private final LongAdder malformed = new LongAdder();
    private final LongAdder failed = new LongAdder();

    /**
     * Creates the adapter.
     *
     * @param node the node to receive from
     */
    public ReliableUdpInboundChannelAdapter(ManagedReliableUdpNode node) {
        this.node = Objects.requireNonNull(node, "node");
    }

    /**
     * Sets the channels to receive from.
     *
     * @param channels channel names or indexes; every channel when none
     */
    public void setChannels(String... channels) {
        this.channelNames = List.of(channels);
    }

    /**
     * Sets the peers to receive from.
     *
     * @param peers peer names or {@code host:port}; every peer when none
     */
    public void setPeers(String... peers) {
        this.peerFilter = List.of(peers);
    }

    /**
     * Sets the payload type to convert to (default {@code byte[]}: no conversion).
     *
     * @param payloadType the type
     */
    public void setPayloadType(Class<?> payloadType) {
        this.payloadType = Objects.requireNonNull(payloadType, "payloadType");
    }

    /**
     * Sets the converter used for {@link #setPayloadType(Class)} (default: the application's
     * {@code reliableUdpMessageConverter} bean, else bytes and text only).
     *
     * @param messageConverter the converter
     */
    public void setMessageConverter(MessageConverter messageConverter) {
        this.messageConverter = Objects.requireNonNull(messageConverter, "messageConverter");
    }

    /**
     * Sets the executor messages are sent to the output channel on.
     *
     * @param executor the executor (default: a virtual thread per drain)
     */
    public void setExecutor(Executor executor) {
        this.executor = executor;
    }

    /** Payloads dropped because their envelope was malformed. */
    public long getMalformedCount() {
        return malformed.sum();
    }

    /** Messages whose conversion or downstream flow failed (with no error channel to take them). */
    public long getFailedCount() {
        return failed.sum();
    }

    @Override
    public String getComponentType() {
        return "reliable-udp:inbound-channel-adapter";
    }

    @Override
    protected void onInit() {
        super.onInit();
        Set<Integer> indexes = new HashSet<>();
        for (String c : channelNames) {
            indexes.add(node.channels().resolve(c).index());
        }
        this.channels = Set.copyOf(indexes);
        for (String p : peerFilter) {
            if (node.peerAddress(p) != null) {
                peerNames.add(p);
            } else {
                peerAddresses.add(ManagedReliableUdpNode.parseAddress(p));
            }
        }
        if (messageConverter == null) {
            org.springframework.beans.factory.BeanFactory bf = getBeanFactory();
            messageConverter = bf != null && bf.containsBean(UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME)
                    ? bf.getBean(UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME, MessageConverter.class)
                    : ReliableUdpMessageConverters.createDefault();
        }
        this.serial = new KeyedSerialExecutor(executor != null ? executor : Executors.newVirtualThreadPerTaskExecutor());
    }

    @Override
    protected void doStart() {
        node.addSubscriber(this);
    }

    @Override
    protected void doStop() {
        node.removeSubscriber(this);
    }

    @Override
    public boolean accepts(InboundUdpMessage message) {
        if (!isRunning() || (!channels.isEmpty() && !channels.contains(message.channel().index()))) {
            return false;
        }
        if (peerNames.isEmpty() && peerAddresses.isEmpty()) {
            return true;
        }
        return (message.peerName() != null && peerNames.contains(message.peerName())) || peerAddresses.contains(message.address());
    }

    @Override
    public void onMessage(InboundUdpMessage message) {
        KeyedSerialExecutor s = serial;
        if (s == null) {
            return;
        }
        try {
            s.execute(List.of(message.address(), message.channel().index()), () -> produce(message));
        } catch (RejectedExecutionException e) {
            failed.increment();
            logger.warn("inbound adapter dropped a message from " + message.address() + ": its executor is shut down");
        }
    }

    private void produce(InboundUdpMessage in) {
        Envelope envelope;
        try {
            envelope = EnvelopeCodec.decode(in.payload());
        } catch (EnvelopeException e) {
            malformed.increment();
            logger.warn("dropped a malformed message from " + in.address() + ": " + e.getMessage());
            return;
        }
        Message<byte[]> raw = InboundMessages.toMessage(in, envelope);
        try {
            Message<?> out = raw;
            MessageConverter converter = messageConverter;
            if (payloadType != byte[].class && converter != null) {
                Object converted = converter.fromMessage(raw, payloadType);
                if (converted == null) {
                    throw new IllegalStateException("cannot convert a " + raw.getHeaders().get(MessageHeaders.CONTENT_TYPE)
                            + " payload to " + payloadType.getName());
                }
                out = MessageBuilder.withPayload(converted).copyHeaders(raw.getHeaders()).build();
            }
            sendMessage(out);
        } catch (RuntimeException e) {
            if (getErrorChannel() != null) {
                try {
                    sendErrorMessageIfNecessary(raw, e);
                    return;
                } catch (RuntimeException ignored) {
                    // fall through to counting and logging
                }
            }
            failed.increment();
            logger.error(e, "inbound adapter could not deliver a message from " + in.address());
        }
    }
}
