package io.reliableudp.transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Where a node's datagrams enter and leave: the seam under the I/O loop. {@link UdpDatagramPort} is a
 * real UDP socket; {@link InMemoryNetwork#open} gives ports of an in-memory network, so that the whole
 * protocol stack (handshake, encryption, the message layer) runs without sockets.
 *
 * <p>Threads: one I/O loop calls {@link #receive} and {@link #awaitReadable}; any thread may call
 * {@link #send} (concurrent sends must be safe) and {@link #wakeup}. A port belongs to one node,
 * which closes it when it closes.
 */
public interface DatagramPort extends AutoCloseable {

    /**
     * Reads one datagram into {@code into} (from its position; the datagram's length is how far the
     * position moved) without blocking. A datagram larger than the remaining space is truncated,
     * as UDP does.
     *
     * @return the sender, or null when no datagram is waiting
     * @throws java.nio.channels.ClosedChannelException when the port is closed
     */
    @Nullable InetSocketAddress receive(ByteBuffer into) throws IOException;

    /**
     * Sends the remaining bytes of {@code datagram} to {@code to} without blocking.
     *
     * @return false when the datagram was not sent because the port's send buffer is full (it is lost,
     *     as on the wire); true when it was handed on
     * @throws java.nio.channels.ClosedChannelException when the port is closed
     */
    boolean send(ByteBuffer datagram, InetSocketAddress to) throws IOException;

    /**
     * As {@link #send(ByteBuffer, InetSocketAddress)}, the datagram marked with the IP TOS byte
     * {@code tos} (IPv6: the traffic class; DSCP in the high six bits, ECN in the low two) instead of
     * the port's own ({@link NodeConfig#trafficClass()}, which {@link #send(ByteBuffer, InetSocketAddress)}
     * uses). The default ignores {@code tos}: a port that cannot mark sends the datagram unmarked.
     *
     * @param tos 0..255
     */
    default boolean send(ByteBuffer datagram, InetSocketAddress to, int tos) throws IOException {
        return send(datagram, to);
    }

    /**
     * Blocks until a datagram can be received, {@link #wakeup()} is called, the port is closed or
     * {@code timeoutNanos} passed, whichever comes first (0 or less: returns at once). May return
     * early for no reason; callers just look again.
     */
    void awaitReadable(long timeoutNanos) throws IOException;

    /**
     * Makes the current {@link #awaitReadable} return, or the next one if none is in progress. Any
     * thread; cheap enough to call once per batch of work, not meant for every datagram.
     */
    void wakeup();

    /** The address this port receives on (its real port number). */
    InetSocketAddress localAddress();

    /**
     * Another port on the same address and port, for one more I/O thread ({@link NodeConfig#ioThreads()}):
     * the kernel then spreads remote addresses between the two. The new port is the caller's to close.
     *
     * @throws UnsupportedOperationException where this kind of port cannot share its address (the default)
     * @throws IOException when the OS refuses (e.g. this port was not opened with {@code SO_REUSEPORT})
     */
    default DatagramPort sibling() throws IOException {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot share its port");
    }

    /**
     * Gives {@code remote} a socket of its own on this port's address ({@link NodeConfig#dedicatedSockets()}),
     * read by {@link #receive} like the shared one. Any thread. The default does nothing.
     *
     * @return whether {@code remote} now has a socket of its own (false: the OS refused or the port cannot)
     */
    default boolean dedicate(InetSocketAddress remote) {
        return false;
    }

    /** Closes the socket {@link #dedicate} opened for {@code remote}, if any. Any thread; idempotent. */
    default void undedicate(InetSocketAddress remote) {
    }

    /**
     * Sends what this port queued: a batching port ({@link BatchedIo}) queues the datagrams the thread
     * that {@linkplain #receive receives} sends, and sends them together when that thread flushes, waits
     * ({@link #awaitReadable}) or reads the socket again; other threads' sends go out at once. The I/O
     * loop calls it at the end of each pass. The default queues nothing.
     *
     * @return how many queued datagrams were lost since the last call (the kernel refused them), to be
     *     counted as send errors
     */
    default int flush() {
        return 0;
    }

    /** What kind of port this is, for the node's start log line (e.g. "plain" or "batched (recvmmsg/sendmmsg, GSO, GRO)"). */
    default String kind() {
        return getClass().getSimpleName();
    }

    /** True until {@link #close()}. */
    boolean isOpen();

    /** Releases the port; a blocked {@link #awaitReadable} returns. Idempotent. */
    @Override
    void close();
}
