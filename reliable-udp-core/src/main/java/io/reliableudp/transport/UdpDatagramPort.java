package io.reliableudp.transport;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.ProtocolFamily;
import java.net.SocketOption;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A {@link DatagramPort} over one UDP socket: a non-blocking {@link DatagramChannel} registered with
 * its own {@link Selector}, so that the I/O loop waits for readability (or a {@link #wakeup()} from
 * another thread) without closing or interrupting the channel.
 *
 * <p>A virtual thread waiting here parks (on recent JDKs the selector's epoll descriptor is polled by
 * the JDK's poller; on JDK 21 the select blocks its carrier, which the scheduler compensates). With
 * {@code reusePort} several ports (and so several nodes, one loop each) can bind the same address and
 * port; the kernel spreads the senders among them (Linux {@code SO_REUSEPORT}).
 */
public final class UdpDatagramPort implements DatagramPort {

    private static final System.Logger LOG = System.getLogger(UdpDatagramPort.class.getName());

    /** The selector's per-key action: nothing to do, the I/O loop reads the channel until it is empty. */
    private static final Consumer<SelectionKey> IGNORE_KEY = key -> { };

    private final DatagramChannel channel;
    private final Selector selector;
    private final InetSocketAddress localAddress;

    private UdpDatagramPort(DatagramChannel channel, Selector selector) throws IOException {
        this.channel = channel;
        this.selector = selector;
        this.localAddress = (InetSocketAddress) channel.getLocalAddress();
    }

    /** A port bound to the node's {@link NodeConfig#bindAddress()} with its socket buffer sizes. */
    public static UdpDatagramPort open(NodeConfig config) throws IOException {
        return open(config.bindAddress(), config.socketReceiveBufferSize(), config.socketSendBufferSize(), false);
    }

    /**
     * Opens and binds a UDP socket. A wildcard bind address ({@code 0.0.0.0}, {@code ::}) gives a
     * dual-stack socket; a specific one a socket of its family.
     *
     * @param receiveBufferBytes SO_RCVBUF to ask for (0 = the OS default); a warning is logged when the kernel grants less
     * @param sendBufferBytes SO_SNDBUF to ask for (0 = the OS default)
     * @param reusePort set SO_REUSEPORT before binding, so that other ports may bind the same address;
     *     {@link UnsupportedOperationException} where the platform lacks it
     */
    public static UdpDatagramPort open(InetSocketAddress bind, int receiveBufferBytes, int sendBufferBytes,
                                       boolean reusePort) throws IOException {
        ProtocolFamily family = bind.getAddress() == null || bind.getAddress().isAnyLocalAddress() ? null
                : bind.getAddress() instanceof Inet6Address ? StandardProtocolFamily.INET6
                : bind.getAddress() instanceof Inet4Address ? StandardProtocolFamily.INET : null;
        DatagramChannel channel = family == null ? DatagramChannel.open() : DatagramChannel.open(family);
        Selector selector = null;
        try {
            setBuffer(channel, StandardSocketOptions.SO_RCVBUF, "socketReceiveBufferSize", receiveBufferBytes);
            setBuffer(channel, StandardSocketOptions.SO_SNDBUF, "socketSendBufferSize", sendBufferBytes);
            if (reusePort) {
                if (!channel.supportedOptions().contains(StandardSocketOptions.SO_REUSEPORT)) {
                    throw new UnsupportedOperationException("SO_REUSEPORT is not supported on this platform");
                }
                channel.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            }
            channel.bind(bind);
            channel.configureBlocking(false);
            selector = Selector.open();
            channel.register(selector, SelectionKey.OP_READ);
            return new UdpDatagramPort(channel, selector);
        } catch (IOException | RuntimeException e) {
            channel.close();
            if (selector != null) {
                selector.close();
            }
            throw e;
        }
    }

    private static void setBuffer(DatagramChannel channel, SocketOption<Integer> option, String field, int requested)
            throws IOException {
        if (requested <= 0) {
            return;
        }
        channel.setOption(option, requested);
        int granted = channel.getOption(option);
        // Linux reports twice the usable size it granted (bookkeeping overhead): a cap shows as less than asked
        if (granted < requested) {
            LOG.log(Level.WARNING, "{0}: asked the kernel for {1} bytes, got {2} (raise net.core.{3}_max to allow more)",
                    field, requested, granted, option == StandardSocketOptions.SO_RCVBUF ? "rmem" : "wmem");
        }
    }

    @Override
    public @Nullable InetSocketAddress receive(ByteBuffer into) throws IOException {
        return (InetSocketAddress) channel.receive(into);
    }

    @Override
    public boolean send(ByteBuffer datagram, InetSocketAddress to) throws IOException {
        return channel.send(datagram, to) > 0 || !datagram.hasRemaining();
    }

    @Override
    public void awaitReadable(long timeoutNanos) throws IOException {
        try {
            // the action forms: a ready key is not added to the selected-key set (a HashSet node per
            // wake-up that returns the key: garbage on every busy wait), the loop reads until empty anyway
            if (timeoutNanos <= 0) {
                selector.selectNow(IGNORE_KEY);
            } else {
                // select takes milliseconds (0 would mean forever): round up, so a short wait never spins
                selector.select(IGNORE_KEY, Math.max(1, (timeoutNanos + 999_999) / 1_000_000));
            }
        } catch (ClosedSelectorException e) {
            throw new ClosedChannelException();
        }
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public boolean isOpen() {
        return channel.isOpen();
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "closing the socket of " + localAddress + " failed: " + e);
        }
        try {
            selector.close();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "closing the selector of " + localAddress + " failed: " + e);
        }
    }

    @Override
    public String toString() {
        return "UdpDatagramPort[" + localAddress + (channel.isOpen() ? "" : ", closed") + "]";
    }
}
