package io.reliableudp.transport;

import io.reliableudp.connection.Connection;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketOption;
import java.net.SocketException;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The datagram budget a connection to a remote address may grow to, as far as the node knows the
 * path, and how the connection searches for it ({@link #discover}): for a peer on a loopback address,
 * the loopback device's MTU less the IP and UDP headers, capped at {@code maxDatagramBudget} (such
 * datagrams never leave the host, so no router on the way can be smaller: one size, never watched);
 * for any other peer, with path-MTU discovery on, the MTU of the interface the route to it leaves by
 * less the headers, capped the same way (the Ethernet size, 1,472 bytes over IPv4 and 1,452 over IPv6,
 * is probed first; the path may be smaller anywhere on the way, so the connection searches and watches
 * for a black hole: docs/messages.md, "Growing the budget: path-MTU discovery"); with it off, the configured
 * {@code datagramBudget}. The connection still asks the peer, with size probes, before it sends one
 * that large. Any thread; the loopback MTU is looked up once, an interface's MTU once per local address.
 * The node's sockets forbid fragmentation ({@link #dontFragment}), so that a probe proves the path.
 */
final class PathBudget {

    private static final System.Logger LOG = System.getLogger(PathBudget.class.getName());

    /** An Ethernet frame's payload: the IP packet a path off the host carries almost everywhere. */
    static final int ETHERNET_MTU = 1500;

    /** The budget every connection starts at (the message layer's {@code datagramBudget}). */
    private final int base;
    /** The largest datagram accepted (the message layer's {@code maxDatagramBudget}). */
    private final int max;
    /** Whether connections to peers off the host search for a larger budget. */
    private final boolean offHost;
    /** The loopback device's MTU once looked up (0: not yet, -1: unknown). */
    private volatile int loopbackMtu;
    /** The MTU of the interface that holds a local address (-1: unknown), by local address. */
    private final ConcurrentHashMap<InetAddress, Integer> interfaceMtu = new ConcurrentHashMap<>();

    PathBudget(int base, int max, boolean offHost) {
        this.base = base;
        this.max = max;
        this.offHost = offHost;
    }

    /** The IP and UDP header bytes in front of a datagram to {@code a}. */
    private static int header(InetAddress a) {
        return a instanceof Inet6Address ? 48 : 28;
    }

    /** The budget a connection to {@code remote} may grow to. */
    int of(InetSocketAddress remote) {
        InetAddress a = remote.getAddress();
        if (max <= base || a == null) {
            return base;
        }
        if (!a.isLoopbackAddress()) {
            if (!offHost) {
                return base;
            }
            int mtu = routeMtu(remote);
            return mtu < 0 ? max : Math.max(base, Math.min(max, mtu - header(a)));
        }
        int mtu = loopbackMtu;
        if (mtu == 0) {
            mtu = lookUpLoopbackMtu(a);
            loopbackMtu = mtu;
        }
        return mtu < 0 ? base : Math.max(base, Math.min(max, mtu - header(a)));
    }

    /**
     * Tells {@code c}, a new connection to {@code remote}, how large its datagrams may grow and how it
     * searches: on this host one known size; off the host the Ethernet size first, up to {@link #of},
     * watched. Nothing when the budget cannot grow.
     */
    void discover(Connection c, InetSocketAddress remote) {
        int size = of(remote);
        if (size <= base) {
            return;
        }
        InetAddress a = remote.getAddress();
        if (a.isLoopbackAddress()) {
            c.discoverDatagramBudget(size, size, false);
        } else {
            c.discoverDatagramBudget(size, ETHERNET_MTU - header(a), true);
        }
    }

    /**
     * The connection {@code c} moved to {@code remote} (another path): its budget falls back to the
     * base and its search starts over with that path's limits.
     */
    void restart(Connection c, InetSocketAddress remote, double now) {
        int size = of(remote);
        InetAddress a = remote.getAddress();
        boolean loopback = a != null && a.isLoopbackAddress();
        c.restartDatagramBudget(size, loopback || a == null ? size : ETHERNET_MTU - header(a), !loopback, now);
    }

    /**
     * Sets don't-fragment ({@code IP_DONTFRAGMENT}: Linux's {@code IP_PMTUDISC_DO}, and its IPv6
     * counterpart), so that a datagram larger than the path is lost (or refused by the kernel with
     * {@code EMSGSIZE}, counted as a send error) rather than fragmented: a size probe must be answered
     * only when the path carries that size whole. Where the platform lacks the option, datagrams are
     * sent as before and a debug line says so.
     */
    @SuppressWarnings("unchecked") // the option's type is checked: Boolean
    static void dontFragment(DatagramChannel channel) {
        try {
            // found by name among the channel's options, so the core names only java.* (the option is
            // jdk.net.ExtendedSocketOptions.IP_DONTFRAGMENT, JDK 19+)
            for (SocketOption<?> option : channel.supportedOptions()) {
                if (option.name().equals("IP_DONTFRAGMENT") && option.type() == Boolean.class) {
                    channel.setOption((SocketOption<Boolean>) option, true);
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "IP_DONTFRAGMENT could not be set: " + e);
            return;
        }
        LOG.log(Level.DEBUG, "IP_DONTFRAGMENT is not supported here: datagrams may be fragmented on the way");
    }

    /**
     * The MTU of the interface the route to {@code remote} leaves by: the local address a socket
     * connected to it gets (a route lookup, nothing sent), then that address's interface; -1 when
     * unknown.
     */
    private int routeMtu(InetSocketAddress remote) {
        InetAddress local;
        try (DatagramChannel ch = DatagramChannel.open(remote.getAddress() instanceof Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET)) {
            ch.connect(remote);
            local = ((InetSocketAddress) ch.getLocalAddress()).getAddress();
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "no route to " + remote + " to read the MTU of: " + e);
            return -1;
        }
        return interfaceMtu.computeIfAbsent(local, PathBudget::lookUpMtu);
    }

    private static int lookUpMtu(InetAddress local) {
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(local);
            int mtu = nif == null ? -1 : nif.getMTU();
            return mtu > 0 ? mtu : -1;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "the MTU of the interface of " + local + " could not be read: " + e);
            return -1;
        }
    }

    private static int lookUpLoopbackMtu(InetAddress a) {
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(a);
            if (nif == null) {
                var all = NetworkInterface.networkInterfaces().filter(n -> {
                    try {
                        return n.isLoopback();
                    } catch (SocketException e) {
                        return false;
                    }
                }).toList();
                nif = all.isEmpty() ? null : all.getFirst();
            }
            int mtu = nif == null ? -1 : nif.getMTU();
            return mtu > 0 ? mtu : -1;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "the loopback MTU could not be read; loopback peers keep the configured datagram budget: " + e);
            return -1;
        }
    }
}
