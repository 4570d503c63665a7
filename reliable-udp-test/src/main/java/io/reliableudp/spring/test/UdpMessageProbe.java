package io.reliableudp.spring.test;

import io.reliableudp.spring.support.InboundUdpMessage;
import io.reliableudp.spring.core.InboundUdpMessageSubscriber;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.support.UdpChannel;
import io.reliableudp.spring.support.EnvelopeCodec;
import io.reliableudp.spring.support.ReliableUdpMessageMapper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.messaging.Message;

/**
 * Takes the messages a node receives on one channel, for a test to await and read, as
 * {@code KafkaTestUtils.getSingleRecord} or Spring Pulsar's {@code PulsarConsumerTestUtil} do: subscribed
 * to the node directly, beside the application's listeners (which still get every message) and without
 * one of its own. Open it before the messages are sent, close it after:
 *
 * <pre>{@code
 * try (UdpMessageProbe<String> notices = UdpMessageProbe.subscribe(node, "notices", String.class)) {
 *     rover.notice("battery low");
 *     ReceivedUdpMessage<String> got = notices.next(Duration.ofSeconds(10));
 *     assertThat(got.payload()).isEqualTo("battery low");
 *     assertThat(got.peerName()).isEqualTo("rover");
 * }
 * }</pre>
 *
 * Payloads are converted to the probe's type as a listener's are (by the given
 * {@link ReliableUdpMessageMapper}, the application's bean when it has customized converters or type
 * mappings; by default the library's: JSON, text, bytes), when a test asks for them, never on the node's
 * receive thread. The probe never answers: a request that only the probe takes times out at its sender.
 * Memory is bounded: it keeps at most {@code capacity} messages not yet taken and counts what it had to
 * drop. A wait that runs out fails with an {@link AssertionError} that lists what did arrive.
 *
 * <p>{@link #next} is for one test thread; the subscription is safe for the node's threads.
 *
 * @param <T> the payload type
 */
public final class UdpMessageProbe<T> implements AutoCloseable {

    /** The default bound of messages kept and not yet taken. */
    public static final int DEFAULT_CAPACITY = 1_000;

    private final ManagedReliableUdpNode node;
    private final UdpChannel channel;
    private final Class<T> type;
    private final ReliableUdpMessageMapper mapper;
    private final BlockingQueue<InboundUdpMessage> queue;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong taken = new AtomicLong();
    private final Subscriber subscriber = new Subscriber();

    private UdpMessageProbe(ManagedReliableUdpNode node, String channel, Class<T> type, ReliableUdpMessageMapper mapper, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.node = Objects.requireNonNull(node, "node");
        this.channel = node.channels().resolve(channel);
        this.type = Objects.requireNonNull(type, "type");
        this.mapper = Objects.requireNonNull(mapper, "mapper");
        this.queue = new ArrayBlockingQueue<>(capacity);
        node.addSubscriber(subscriber);
    }

    /**
     * Subscribes a probe with the library's default conversion and capacity.
     *
     * @param node the node whose messages to take
     * @param channel the channel name or index
     * @param type the payload type ({@code String}, {@code byte[]}, a record read from JSON)
     * @param <T> the payload type
     * @return the subscribed probe (close it)
     * @throws IllegalArgumentException when the node has no such channel
     */
    public static <T> UdpMessageProbe<T> subscribe(ManagedReliableUdpNode node, String channel, Class<T> type) {
        return subscribe(node, channel, type, ReliableUdpMessageMapper.createDefault(), DEFAULT_CAPACITY);
    }

    /**
     * Subscribes a probe converting with the given mapper.
     *
     * @param node the node whose messages to take
     * @param channel the channel name or index
     * @param type the payload type
     * @param mapper the converter, header mapper and type ids (the application's {@code ReliableUdpMessageMapper} bean)
     * @param capacity the most messages kept and not yet taken; later ones are dropped and counted
     * @param <T> the payload type
     * @return the subscribed probe (close it)
     * @throws IllegalArgumentException when the node has no such channel or the capacity is below 1
     */
    public static <T> UdpMessageProbe<T> subscribe(ManagedReliableUdpNode node, String channel, Class<T> type,
            ReliableUdpMessageMapper mapper, int capacity) {
        return new UdpMessageProbe<>(node, channel, type, mapper, capacity);
    }

    /**
     * Waits for the next message.
     *
     * @param timeout how long to wait
     * @return the message
     * @throws AssertionError when none arrived in time, or the payload is not convertible to the type
     * @throws InterruptedException when interrupted while waiting
     */
    public ReceivedUdpMessage<T> next(Duration timeout) throws InterruptedException {
        return next(1, timeout).getFirst();
    }

    /**
     * Waits for the next {@code count} messages, in the order the node delivered them.
     *
     * @param count how many
     * @param timeout how long to wait for all of them
     * @return the messages
     * @throws AssertionError when fewer arrived in time (saying which did), or a payload is not convertible
     * @throws InterruptedException when interrupted while waiting
     */
    public List<ReceivedUdpMessage<T>> next(int count, Duration timeout) throws InterruptedException {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        List<ReceivedUdpMessage<T>> got = new ArrayList<>(count);
        while (got.size() < count) {
            InboundUdpMessage in = queue.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (in == null) {
                throw new AssertionError("expected " + count + " message(s) on channel '" + channel.name() + "' of " + node
                        + " within " + timeout + ", got " + got.size() + (got.isEmpty() ? "" : ": " + got)
                        + (taken.get() > got.size() ? " (" + (taken.get() - got.size()) + " taken by earlier waits)" : "")
                        + (dropped.get() > 0 ? "; " + dropped.get() + " dropped because the probe was full (capacity "
                                + (queue.size() + queue.remainingCapacity()) + ")" : ""));
            }
            taken.incrementAndGet();
            got.add(convert(in));
        }
        return got;
    }

    /** Messages dropped because {@code capacity} were kept and not taken. */
    public long droppedCount() {
        return dropped.get();
    }

    /** Unsubscribes from the node; messages kept and not taken are discarded. */
    @Override
    public void close() {
        node.removeSubscriber(subscriber);
        queue.clear();
    }

    private ReceivedUdpMessage<T> convert(InboundUdpMessage in) {
        Message<?> message;
        Object payload;
        try {
            message = mapper.toTypedMessage(in, EnvelopeCodec.decode(in.payload()), type.getClassLoader());
            payload = mapper.fromMessage(message, type);
        } catch (RuntimeException e) {
            throw new AssertionError("message #" + in.messageId() + " on channel '" + channel.name() + "' from "
                    + in.address() + " is no " + type.getName() + ": " + e.getMessage(), e);
        }
        return new ReceivedUdpMessage<>(type.cast(payload), message.getHeaders(), in.channel());
    }

    @Override
    public String toString() {
        return "UdpMessageProbe[" + channel.name() + " of " + node + ", " + type.getSimpleName() + ", "
                + queue.size() + " waiting, " + dropped.get() + " dropped]";
    }

    private final class Subscriber implements InboundUdpMessageSubscriber {

        @Override
        public boolean accepts(InboundUdpMessage message) {
            return message.channel().index() == channel.index();
        }

        @Override
        public void onMessage(InboundUdpMessage message) {
            if (!queue.offer(message)) {
                dropped.incrementAndGet();
            }
        }

        @Override
        public String toString() {
            return UdpMessageProbe.this.toString();
        }
    }
}
