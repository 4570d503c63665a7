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
import java.nio.channels.Pipe;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A {@link DatagramPort} over one UDP socket: a non-blocking {@link DatagramChannel} registered with
 * its own {@link Selector}, so that the I/O loop waits for readability (or a {@link #wakeup()} from
 * another thread) without closing or interrupting the channel.
 *
 * <p>Other threads wake the wait through a pipe of this port's own, registered with the selector
 * beside the socket, rather than {@link Selector#wakeup()}: the JDK's selector writes its eventfd
 * while it holds a monitor that the woken select takes again to clear the wake-up, so every wake-up
 * of a waiting loop would make the woken thread block on the waker (the I/O thread's most
 * frequent contended monitor, a futex wait and wake and a context switch per wake-up). The pipe's
 * write end has its own lock, which the loop never takes; the loop reads the pipe empty when the
 * select reports it.
 *
 * <p>A virtual thread waiting here parks (on recent JDKs the selector's epoll descriptor is polled by
 * the JDK's poller; on JDK 21 the select blocks its carrier, which the scheduler compensates). With
 * {@code reusePort} several ports (and so several nodes, one loop each) can bind the same address and
 * port; the kernel spreads the senders among them (Linux {@code SO_REUSEPORT}): {@link #sibling()}
 * opens one more for another I/O thread of the same node.
 *
 * <p>Dedicated sockets ({@link #dedicate}): a socket bound to the same address and port and
 * {@code connect()}ed to one remote address, registered with this port's selector. Linux delivers
 * that address's datagrams to it (an exact 4-tuple match wins over the unconnected group), into a
 * kernel buffer of its own that a flood of the shared socket cannot fill. Until the first one is
 * opened {@link #receive} reads the one socket exactly as before; from then on it reads, one
 * datagram at a time in turn, every socket the last select found readable, and selects again (without
 * blocking) every {@link #RESELECT_EVERY} datagrams, so that a flooded shared socket, which never runs
 * empty, cannot keep a peer's socket out of the turn. Traffic classes: {@link SocketMarking}.
 */
public final class UdpDatagramPort implements DatagramPort {

    private static final System.Logger LOG = System.getLogger(UdpDatagramPort.class.getName());

    /** The attachment of the wake-up pipe's selection key. */
    private static final Object WAKE = new Object();

    private final DatagramChannel channel;
    private final Selector selector;
    private final InetSocketAddress localAddress;
    /** What {@link #open} was asked for: a sibling or a dedicated socket is opened the same way. */
    private final InetSocketAddress bind;
    private final int receiveBufferBytes;
    private final int sendBufferBytes;
    private final boolean reusePort;
    private final SocketMarking marking;
    /** Dedicated sockets by remote address; any thread adds and removes, the I/O loop reads. */
    private final ConcurrentHashMap<InetSocketAddress, DatagramChannel> dedicated = new ConcurrentHashMap<>();
    /** Set once the first dedicated socket is open: from then on {@link #receive} reads several sockets. */
    private volatile boolean grouped;
    // I/O loop only (grouped mode): the sockets the last select found readable, read in turn
    private Member[] ready = new Member[4];
    private int readyCount;
    private int cursor;
    private boolean justSelected;
    /** Datagrams read since the last select (grouped mode). */
    private int sinceSelect;
    /**
     * Grouped mode: a select at least every this many datagrams, so that a socket that became readable
     * while another kept the loop busy (a flooded shared socket never runs empty) joins the turn.
     */
    static final int RESELECT_EVERY = 16;
    private final Consumer<SelectionKey> collect = this::collect;
    /** Single-socket mode's per-key action: empties the wake-up pipe; the loop reads the socket until it is empty anyway. */
    private final Consumer<SelectionKey> onReady = this::onReady;
    /** Wakes the select ({@link #wakeup()}): other threads write a byte, the loop reads them. */
    private final Pipe wake;
    /**
     * Set by the waker that writes the pipe, cleared by the loop after it read the pipe empty: until
     * then further wake-ups write nothing (the select they would end has returned or is about to).
     */
    private final AtomicBoolean signalled = new AtomicBoolean();
    /** The byte a waker writes; wakers take its monitor (the loop never does). */
    private final ByteBuffer wakeByte = ByteBuffer.allocateDirect(1);
    /** Where the loop reads the wake-up pipe empty (loop only). */
    private final ByteBuffer wakeDrain = ByteBuffer.allocateDirect(64);

    private UdpDatagramPort(DatagramChannel channel, Selector selector, Pipe wake, InetSocketAddress bind,
                            int receiveBufferBytes, int sendBufferBytes, boolean reusePort, SocketMarking marking)
            throws IOException {
        this.channel = channel;
        this.selector = selector;
        this.wake = wake;
        this.localAddress = (InetSocketAddress) channel.getLocalAddress();
        this.bind = bind;
        this.receiveBufferBytes = receiveBufferBytes;
        this.sendBufferBytes = sendBufferBytes;
        this.reusePort = reusePort;
        this.marking = marking;
    }

    /**
     * A port bound to the node's {@link NodeConfig#bindAddress()} with its socket buffer sizes and traffic class;
     * with {@code SO_REUSEPORT} when the node wants more than one I/O thread or dedicated sockets and {@link #reusePortWorks()}.
     */
    public static UdpDatagramPort open(NodeConfig config) throws IOException {
        boolean share = (config.ioThreads() > 1 || config.dedicatedSockets() > 0) && reusePortWorks();
        return open(config.bindAddress(), config.socketReceiveBufferSize(), config.socketSendBufferSize(), share,
                config.trafficClass().tos(), SocketMarking.channelClasses(config));
    }

    /**
     * Whether this platform spreads UDP datagrams among sockets sharing a port and prefers a connected
     * socket's exact match: Linux with {@code SO_REUSEPORT}. (BSD and macOS accept the option but hand
     * unicast datagrams to one socket of the group; Windows lacks it.) Logs a warning once when not.
     */
    public static boolean reusePortWorks() {
        return ReusePortSupport.WORKS;
    }

    /** Holds the one-time probe of {@link #reusePortWorks()}. */
    private static final class ReusePortSupport {
        static final boolean WORKS = probe();

        private static boolean probe() {
            String os = System.getProperty("os.name", "");
            boolean linux = os.toLowerCase(java.util.Locale.ROOT).startsWith("linux");
            boolean option;
            try (DatagramChannel probe = DatagramChannel.open()) {
                option = probe.supportedOptions().contains(StandardSocketOptions.SO_REUSEPORT);
            } catch (IOException | RuntimeException e) {
                option = false;
            }
            if (!linux || !option) {
                LOG.log(Level.WARNING, "SO_REUSEPORT port sharing is not available on " + os
                        + (option ? " (only Linux spreads datagrams among the sockets)" : " (no SO_REUSEPORT)")
                        + ": ioThreads and dedicatedSockets fall back to one shared socket and one I/O thread");
            }
            return linux && option;
        }
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
        return open(bind, receiveBufferBytes, sendBufferBytes, reusePort, 0, false);
    }

    /** As {@link #open(InetSocketAddress, int, int, boolean)}, marked as {@link SocketMarking} says. */
    static UdpDatagramPort open(InetSocketAddress bind, int receiveBufferBytes, int sendBufferBytes,
                                boolean reusePort, int tos, boolean channelClasses) throws IOException {
        ProtocolFamily family = bind.getAddress() == null || bind.getAddress().isAnyLocalAddress() ? null
                : bind.getAddress() instanceof Inet6Address ? StandardProtocolFamily.INET6
                : bind.getAddress() instanceof Inet4Address ? StandardProtocolFamily.INET : null;
        DatagramChannel channel = family == null ? DatagramChannel.open() : DatagramChannel.open(family);
        Selector selector = null;
        Pipe wake = null;
        try {
            setBuffer(channel, StandardSocketOptions.SO_RCVBUF, "socketReceiveBufferSize", receiveBufferBytes);
            setBuffer(channel, StandardSocketOptions.SO_SNDBUF, "socketSendBufferSize", sendBufferBytes);
            PathBudget.dontFragment(channel); // a size probe must not be answered in fragments
            if (reusePort) {
                if (!channel.supportedOptions().contains(StandardSocketOptions.SO_REUSEPORT)) {
                    throw new UnsupportedOperationException("SO_REUSEPORT is not supported on this platform");
                }
                channel.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            }
            SocketMarking marking = new SocketMarking(channel, tos, channelClasses);
            channel.bind(bind);
            channel.configureBlocking(false);
            selector = Selector.open();
            channel.register(selector, SelectionKey.OP_READ, new Member(channel));
            wake = Pipe.open();
            wake.source().configureBlocking(false);
            wake.sink().configureBlocking(false);
            wake.source().register(selector, SelectionKey.OP_READ, WAKE);
            return new UdpDatagramPort(channel, selector, wake, bind, receiveBufferBytes, sendBufferBytes, reusePort, marking);
        } catch (IOException | RuntimeException e) {
            channel.close();
            if (selector != null) {
                selector.close();
            }
            if (wake != null) {
                closeQuietly(wake);
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
        if (!grouped) {
            return (InetSocketAddress) channel.receive(into);
        }
        return receiveGrouped(into);
    }

    /**
     * Grouped mode: one datagram from the readable sockets in turn (so a flooded shared socket does not
     * starve a peer's own), selecting again without blocking once they are all empty; null when a fresh
     * select found nothing more.
     */
    private @Nullable InetSocketAddress receiveGrouped(ByteBuffer into) throws IOException {
        while (true) {
            if (sinceSelect >= RESELECT_EVERY) {
                select(0);
            }
            while (readyCount > 0) {
                if (cursor >= readyCount) {
                    cursor = 0;
                }
                Member m = ready[cursor];
                DatagramChannel ch = m.channel;
                InetSocketAddress from;
                try {
                    from = (InetSocketAddress) ch.receive(into);
                } catch (ClosedChannelException e) {
                    if (ch == channel) {
                        throw e; // the port itself: fatal, as in the single-socket mode
                    }
                    from = null; // a dedicated socket closed as its peer left
                } catch (IOException e) {
                    if (ch == channel) {
                        throw e;
                    }
                    // e.g. an ICMP error reported on a connected socket: that socket is empty for now
                    LOG.log(Level.DEBUG, () -> "receive on the dedicated socket of " + localAddress + " failed: " + e);
                    from = null;
                }
                if (from != null) {
                    cursor++;
                    sinceSelect++;
                    return from;
                }
                m.listed = false;
                readyCount--;
                ready[cursor] = ready[readyCount];
                ready[readyCount] = null;
            }
            if (justSelected) {
                justSelected = false;
                return null;
            }
            select(0);
        }
    }

    /** Grouped mode: selects (0: without blocking) and collects the readable sockets. */
    private void select(long timeoutMillis) throws IOException {
        try {
            if (timeoutMillis <= 0) {
                selector.selectNow(collect);
            } else {
                selector.select(collect, timeoutMillis);
            }
        } catch (ClosedSelectorException e) {
            throw new ClosedChannelException();
        }
        justSelected = true;
        sinceSelect = 0;
    }

    private void collect(SelectionKey key) {
        if (key.attachment() == WAKE) {
            drainWake();
            return;
        }
        if (!(key.attachment() instanceof Member m) || m.listed) {
            return; // listed already: it is still being read in turn
        }
        m.listed = true;
        if (readyCount == ready.length) {
            ready = java.util.Arrays.copyOf(ready, readyCount * 2);
        }
        ready[readyCount++] = m;
    }

    /** One socket of a grouped port, as its selection key's attachment; {@code listed} is the I/O loop's. */
    private static final class Member {
        final DatagramChannel channel;
        boolean listed;

        Member(DatagramChannel channel) {
            this.channel = channel;
        }
    }

    @Override
    public UdpDatagramPort sibling() throws IOException {
        if (!reusePort) {
            throw new IOException("the port " + localAddress + " was opened without SO_REUSEPORT: it cannot be shared");
        }
        InetSocketAddress same = bind.getAddress() == null ? new InetSocketAddress(localAddress.getPort())
                : new InetSocketAddress(bind.getAddress(), localAddress.getPort());
        return open(same, receiveBufferBytes, sendBufferBytes, true, marking.defaultTos, marking.marking());
    }

    @Override
    public boolean dedicate(InetSocketAddress remote) {
        if (!reusePort || !channel.isOpen() || dedicated.containsKey(remote)) {
            return false;
        }
        DatagramChannel ch = null;
        try {
            ProtocolFamily family = bind.getAddress() == null || bind.getAddress().isAnyLocalAddress() ? null
                    : bind.getAddress() instanceof Inet6Address ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET;
            ch = family == null ? DatagramChannel.open() : DatagramChannel.open(family);
            // the peer's own buffer: the node's size, the kernel charges only what is queued
            setBuffer(ch, StandardSocketOptions.SO_RCVBUF, "socketReceiveBufferSize", receiveBufferBytes);
            PathBudget.dontFragment(ch);
            ch.setOption(StandardSocketOptions.SO_REUSEPORT, true);
            ch.bind(bind.getAddress() == null ? new InetSocketAddress(localAddress.getPort())
                    : new InetSocketAddress(bind.getAddress(), localAddress.getPort()));
            ch.connect(remote);
            ch.configureBlocking(false);
            // grouped before the first registration, so that the loop's next receive selects this socket too
            grouped = true;
            ch.register(selector, SelectionKey.OP_READ, new Member(ch));
            DatagramChannel raced = dedicated.putIfAbsent(remote, ch);
            if (raced != null) {
                ch.close();
                return false;
            }
            wakeup(); // a loop waiting in select picks the new key up
            return true;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, "could not open a dedicated socket on " + localAddress + " for " + remote
                    + "; the peer shares the node's socket: " + e);
            if (ch != null) {
                try {
                    ch.close();
                } catch (IOException ignored) {
                    // nothing more to release
                }
            }
            return false;
        }
    }

    @Override
    public void undedicate(InetSocketAddress remote) {
        DatagramChannel ch = dedicated.remove(remote);
        if (ch != null) {
            try {
                ch.close(); // its selection key is cancelled; the loop skips it
            } catch (IOException e) {
                LOG.log(Level.DEBUG, () -> "closing the dedicated socket for " + remote + " failed: " + e);
            }
        }
    }

    /** How many dedicated sockets are open (tests, stats). */
    public int dedicatedSockets() {
        return dedicated.size();
    }

    @Override
    public boolean send(ByteBuffer datagram, InetSocketAddress to) throws IOException {
        return marking.send(datagram, to);
    }

    @Override
    public boolean send(ByteBuffer datagram, InetSocketAddress to, int tos) throws IOException {
        return marking.send(datagram, to, tos);
    }

    @Override
    public void awaitReadable(long timeoutNanos) throws IOException {
        if (grouped) {
            // keep what the selector finds: receive reads exactly those sockets
            select(timeoutNanos <= 0 ? 0 : Math.max(1, (timeoutNanos + 999_999) / 1_000_000));
            return;
        }
        try {
            // the action forms: a ready key is not added to the selected-key set (a HashSet node per
            // wake-up that returns the key: garbage on every busy wait), the loop reads until empty anyway
            if (timeoutNanos <= 0) {
                selector.selectNow(onReady);
            } else {
                // select takes milliseconds (0 would mean forever): round up, so a short wait never spins
                selector.select(onReady, Math.max(1, (timeoutNanos + 999_999) / 1_000_000));
            }
        } catch (ClosedSelectorException e) {
            throw new ClosedChannelException();
        }
    }

    /** Single-socket mode: the socket needs nothing (the loop reads it until empty); the wake-up pipe is emptied. */
    private void onReady(SelectionKey key) {
        if (key.attachment() == WAKE) {
            drainWake();
        }
    }

    /**
     * The loop, after a select reported the pipe: reads every wake-up byte (a waker's byte written
     * after this read stays and ends the next select at once, so none is lost).
     */
    private void drainWake() {
        try {
            do {
                wakeDrain.clear();
            } while (wake.source().read(wakeDrain) > 0);
        } catch (IOException e) {
            // closed under us (the port is closing): nothing to wake any more
            LOG.log(Level.DEBUG, () -> "reading the wake-up pipe of " + localAddress + " failed: " + e);
        }
        // after the read: a wake-up skipped because the flag was still set came before this point, and
        // the turn that follows this select sees what its caller did; one after it writes a new byte
        signalled.set(false);
    }

    @Override
    public void wakeup() {
        if (signalled.get() || signalled.getAndSet(true)) {
            return; // a byte is in the pipe and the loop has not read it yet
        }
        synchronized (wakeByte) {
            wakeByte.clear();
            try {
                // non-blocking: a full pipe (64 KiB of unread wake-ups) already wakes the loop
                wake.sink().write(wakeByte);
            } catch (IOException e) {
                // closed: the loop is stopping or stopped, there is no wait left to end
                LOG.log(Level.DEBUG, () -> "waking the I/O loop of " + localAddress + " failed: " + e);
            }
        }
    }

    private static void closeQuietly(Pipe pipe) {
        try {
            pipe.sink().close();
        } catch (IOException ignored) {
            // nothing more to release
        }
        try {
            pipe.source().close();
        } catch (IOException ignored) {
            // nothing more to release
        }
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
        for (InetSocketAddress remote : dedicated.keySet()) {
            undedicate(remote);
        }
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
        closeQuietly(wake);
    }

    @Override
    public String kind() {
        return "plain (DatagramChannel)";
    }

    @Override
    public String toString() {
        return "UdpDatagramPort[" + localAddress + (channel.isOpen() ? "" : ", closed") + "]";
    }
}
