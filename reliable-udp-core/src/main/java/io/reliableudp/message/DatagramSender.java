package io.reliableudp.message;

import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Where a {@link MessageEndpoint} puts the packet-layer datagrams it wants on the wire.
 *
 * <p>A sender that frames the packets itself (the connection layer) may offer its own datagram
 * buffer ({@link #datagramBuffer()}) with room in front for its header ({@link #headroom()}): the
 * endpoint then writes the message frames into that buffer behind the room for both headers, the
 * packet layer writes its header right in front of them, and the packet arrives at
 * {@link #send(ByteBuffer, int, int)} where it already lies, so the sender writes its header in front
 * of it and sends the region as it is. A plain sender (a lambda) needs only {@link #send(byte[], int, int)}:
 * the endpoint then composes in a heap buffer of its own and hands over that buffer's array.
 */
@FunctionalInterface
public interface DatagramSender {

    /** {@link #trafficClass(int)}: the datagrams carry the sender's own class (the node's). */
    int NODE_CLASS = -1;

    /**
     * Sends one datagram (packet header and message frames; the lower layers add their own framing).
     * The bytes are valid only during the call: copy them to keep them.
     *
     * @param data buffer holding the datagram
     * @param offset first byte
     * @param length number of bytes
     */
    void send(byte[] data, int offset, int length);

    /**
     * Sends one datagram that lies in {@code buffer[offset, offset+length)} (absolute indexes): the
     * {@link #datagramBuffer()} when the sender offers one, with at least {@link #headroom()} free
     * bytes in front of {@code offset}, or else the endpoint's own heap buffer. The bytes are valid
     * only during the call. The sender may move the buffer's position and limit during the call but
     * must leave them as {@link ByteBuffer#clear()} does.
     *
     * <p>The default hands a heap buffer's array to {@link #send(byte[], int, int)} without a copy,
     * and copies a direct buffer's bytes into a new array (that allocates: a sender that offers a
     * direct buffer overrides this).
     *
     * @param buffer buffer holding the datagram
     * @param offset index of the first byte
     * @param length number of bytes
     */
    default void send(ByteBuffer buffer, int offset, int length) {
        if (buffer.hasArray()) {
            send(buffer.array(), buffer.arrayOffset() + offset, length);
        } else {
            byte[] copy = new byte[length];
            buffer.get(offset, copy);
            send(copy, 0, length);
        }
    }

    /**
     * The buffer the endpoint composes its packets in, or null (the default) to let the endpoint use
     * a heap buffer of its own. Asked when the endpoint is made, and again after
     * {@link MessageEndpoint#datagramBudgetChanged} (then it must hold a datagram of the new budget); the buffer must be writable,
     * used by nothing else while a packet is composed and sent, and hold {@link #headroom()} + 9 +
     * {@link MessageEndpoint#packetPayloadBudget()} bytes (plus whatever the sender appends, such as an
     * AEAD tag).
     *
     * @return the buffer, or null
     */
    default @Nullable ByteBuffer datagramBuffer() {
        return null;
    }

    /**
     * Bytes the sender writes in front of each packet in its {@link #datagramBuffer()} (its frame
     * header); 0 by default. Asked once, when the endpoint is made.
     *
     * @return 0 or more
     */
    default int headroom() {
        return 0;
    }

    /**
     * Told once, after the first send round in which a packet was full while more messages waited:
     * larger datagrams would carry this endpoint's traffic in fewer packets. A sender that can find
     * out whether the path carries them may answer with {@link MessageEndpoint#datagramBudgetChanged}
     * later (never from inside this call). Only asked when {@link MessageConfig#maxDatagramBudget()}
     * is above {@link MessageConfig#datagramBudget()}. The default ignores it.
     */
    default void largerDatagramsWanted() {
    }

    /**
     * The IP TOS byte (DSCP and ECN bits, 0..255) of the datagrams sent from now until the next call,
     * or {@link #NODE_CLASS} for the sender's own: called before a packet of a channel with its own
     * {@link ChannelConfig#trafficClass()} and again with {@link #NODE_CLASS} after it, so acks,
     * keepalives and whatever else the lower layers send keep the node's class. The default ignores it.
     *
     * @param tos the TOS byte, or {@link #NODE_CLASS}
     */
    default void trafficClass(int tos) {
    }

    /**
     * Told after a send round in which packets larger than {@link MessageConfig#datagramBudget()} seemed
     * lost while smaller ones pass: a message whose last packet was large fell due for a timer resend,
     * or {@value PacketComposer#LARGE_LOSSES_IN_ROW} large packets were declared lost with none acknowledged
     * in between. Only while the budget was set with {@link MessageEndpoint#datagramBudgetChanged(int, boolean)}
     * and {@code watch}. The round stopped before composing more at that size; the sender should call
     * {@link MessageEndpoint#datagramBudgetChanged} with a smaller budget from inside this call (what
     * is due then goes in smaller packets); if it does not, large packets are no longer watched. The
     * default does nothing.
     */
    default void largeDatagramsLost() {
    }
}
