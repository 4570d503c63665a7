package io.reliableudp.transport;

import io.reliableudp.connection.Connection;
import io.reliableudp.link.DatagramConsumer;
import io.reliableudp.link.LinkConditioner;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.DatagramSender;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * The transmit path of one peer: what its {@link Connection} writes goes to the socket of the peer's
 * lane ({@link Socket}), through the peer's link conditioner while the node has one
 * ({@link ConditionerSetting}). Called by the connection, so under the peer's lock
 * ({@link PeerDriver#lock}), on whichever thread holds it: the lane's thread, or an application thread
 * that writes its own message (see {@link ImmediateLaneSchedule}) or flushes in the {@code TICK} send
 * mode. Every field is guarded by that lock.
 */
final class PeerTransmitter implements Connection.Transmitter {

    /**
     * Where a peer's datagrams leave: its lane's socket (implemented by {@link IoLane}). Any thread;
     * a buffer passed in belongs to the caller (under the peer's lock) until the call returns.
     */
    interface Socket {
        /**
         * Writes {@code buffer[offset, offset+length)} as it lies (a direct buffer goes without a copy)
         * with the TOS byte {@code tos} ({@link DatagramSender#NODE_CLASS}: the node's); counted as sent.
         */
        void transmit(ByteBuffer buffer, int offset, int length, InetSocketAddress to, int tos);

        /** Copies {@code data[offset, offset+length)} into the direct {@code buffer} and writes it with {@code tos}; counted as sent. */
        void transmit(ByteBuffer buffer, InetSocketAddress to, byte[] data, int offset, int length, int tos);

        /** As the copying {@link #transmit}, for a datagram the conditioner releases: counted when it was submitted. */
        void transmitConditioned(ByteBuffer buffer, InetSocketAddress to, byte[] data, int offset, int length);
    }

    private final Socket socket;
    /** Where the peer's datagrams go: its address, which a migration changes (under the lock). */
    private InetSocketAddress address;
    /**
     * Bytes this peer may still be sent before its address is validated: three times what arrived from
     * it (the amplification limit of RFC 9000, 8.1); {@link Long#MAX_VALUE} once validated.
     */
    private long credit = Long.MAX_VALUE;
    private final ConditionerSetting setting;
    private final NodeClock clock;
    private final NodeCounters counters;
    /** Direct: where a datagram that is not already in a direct buffer is copied to be sent. */
    private ByteBuffer sendBuffer;
    /** Where a direct frame is copied on its way into the link conditioner: made on first use (only a conditioned node needs it). */
    private byte @Nullable [] conditionerStaging;
    private @Nullable LinkConditioner conditioner;
    private int conditionerGeneration;
    private final DatagramConsumer forward = this::transmitNow;
    /**
     * The TOS byte of the datagrams now transmitted ({@link DatagramSender#NODE_CLASS}: the node's, set
     * on the port): the message layer sets it around a packet of a channel with a class of its own.
     * A datagram held by the link conditioner leaves with the node's.
     */
    private int tos = DatagramSender.NODE_CLASS;

    PeerTransmitter(Socket socket, InetSocketAddress address, ConditionerSetting setting, NodeClock clock,
                    NodeCounters counters, int datagramBudget) {
        this.socket = socket;
        this.address = address;
        this.setting = setting;
        this.clock = clock;
        this.counters = counters;
        this.sendBuffer = ByteBuffer.allocateDirect(datagramBudget + 512);
    }

    /** Sends go to {@code to} from now on, within {@code credit} bytes until {@link #unlimited} (a migration). */
    void moveTo(InetSocketAddress to, long creditBytes) {
        this.address = to;
        this.credit = creditBytes;
    }

    /** The address was validated, or the peer went back to a validated one: no more limit. */
    void unlimited() {
        credit = Long.MAX_VALUE;
    }

    /** {@code bytes} more may be sent (a datagram arrived from the address being validated). */
    void credit(long bytes) {
        if (credit != Long.MAX_VALUE) {
            credit = Math.min(Long.MAX_VALUE - 1, credit + bytes);
        }
    }

    /** Whether sends are limited now (the address is not validated). */
    boolean limited() {
        return credit != Long.MAX_VALUE;
    }

    /** Takes {@code length} bytes of the credit; false (counted) when the datagram must not go. */
    private boolean withinLimit(int length) {
        if (credit == Long.MAX_VALUE) {
            return true;
        }
        if (credit < length) {
            counters.amplificationLimited.increment(); // lost like on the wire: the message layer resends
            return false;
        }
        credit -= length;
        return true;
    }

    /**
     * A frame in the connection's datagram buffer: a direct buffer (plain mode) goes to the port as it
     * lies; a heap buffer (encrypted mode) is copied into this peer's direct send buffer first, once.
     * Through the link conditioner when the node has one (it queues a copy: a test and diagnostic tool,
     * not the fast path).
     */
    @Override
    public void transmit(ByteBuffer buffer, int offset, int length) {
        if (!withinLimit(length)) {
            return;
        }
        if (buffer.isDirect() && conditioner() == null) {
            socket.transmit(buffer, offset, length, address, tos);
        } else if (buffer.hasArray()) {
            transmitChecked(buffer.array(), buffer.arrayOffset() + offset, length);
        } else {
            byte[] staging = conditionerStaging;
            if (staging == null || staging.length < length) {
                staging = new byte[Math.max(length, sendBuffer.capacity())];
                conditionerStaging = staging;
            }
            buffer.get(offset, staging, 0, length);
            transmitChecked(staging, 0, length);
        }
    }

    /** A datagram in an array (handshake packets): through the link conditioner when the node has one. */
    @Override
    public void transmit(byte[] data, int offset, int length) {
        if (!withinLimit(length)) {
            return;
        }
        transmitChecked(data, offset, length);
    }

    private void transmitChecked(byte[] data, int offset, int length) {
        LinkConditioner c = conditioner();
        if (c == null) {
            socket.transmit(sendBuffer(length), address, data, offset, length, tos);
        } else {
            double now = clock.now();
            counters.sent(length); // sent into the simulated network, whatever it does with it
            c.submit(data, offset, length, now);
            c.poll(now, forward);
        }
    }

    @Override
    public void trafficClass(int tos) {
        this.tos = tos;
    }

    private void transmitNow(byte[] data, int offset, int length) {
        socket.transmitConditioned(sendBuffer(length), address, data, offset, length);
    }

    /** The direct buffer a datagram of {@code length} bytes is copied into: larger once the connection's datagrams grew. */
    private ByteBuffer sendBuffer(int length) {
        ByteBuffer b = sendBuffer;
        if (length > b.capacity()) {
            b = ByteBuffer.allocateDirect(length + 512);
            sendBuffer = b;
        }
        return b;
    }

    /** The peer's conditioner, following the node's current setting. */
    private @Nullable LinkConditioner conditioner() {
        int generation = setting.generation();
        if (generation != conditionerGeneration) {
            conditionerGeneration = generation;
            LinkConditionerConfig config = setting.config();
            LinkConditioner old = conditioner;
            if (config == null) {
                conditioner = null;
                if (old != null) {
                    old.poll(Double.POSITIVE_INFINITY, forward); // deliver what was in flight
                }
            } else if (old == null) {
                // one seeded stream per peer: the same seed and port give the same fates
                conditioner = new LinkConditioner(new LinkConditionerConfig(config.latencyMillis(), config.jitterMillis(),
                        config.lossProbability(), config.burstEnterProbability(), config.burstExitProbability(),
                        config.burstLossProbability(), config.duplicateProbability(), config.reorderProbability(),
                        config.reorderDelayMillis(), config.bandwidthBytesPerSecond(), config.queueLimitBytes(),
                        config.seed() * 31 + address.getPort()));
            } else {
                old.reconfigure(config);
            }
        }
        return conditioner;
    }

    /** Sends the conditioned datagrams that are due (the lane's thread, every turn while a conditioner is set). */
    void pollConditioner(double now) {
        LinkConditioner c = conditioner();
        if (c != null && c.nextDueTime() <= now) {
            c.poll(now, forward);
        }
    }
}
