package io.reliableudp.transport;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;

/**
 * The datagram budget a connection to a remote address may grow to, as far as the node knows the
 * path: for a peer on a loopback address, the loopback device's MTU less the IP and UDP headers,
 * capped at {@code maxDatagramBudget} (such datagrams never leave the host, so no router on the way
 * can be smaller); for any other peer the configured {@code datagramBudget}, the size every path is
 * assumed to carry (docs/messages.md, "Datagram budget"). The connection still asks the peer, with a
 * size probe, before it sends one that large. Any thread; the MTU is looked up once.
 */
final class PathBudget {

    private static final System.Logger LOG = System.getLogger(PathBudget.class.getName());

    /** The budget every connection starts at (the message layer's {@code datagramBudget}). */
    private final int base;
    /** The largest datagram accepted (the message layer's {@code maxDatagramBudget}). */
    private final int max;
    /** The loopback device's MTU once looked up (0: not yet, -1: unknown). */
    private volatile int loopbackMtu;

    PathBudget(int base, int max) {
        this.base = base;
        this.max = max;
    }

    /** The budget a connection to {@code remote} may grow to. */
    int of(InetSocketAddress remote) {
        InetAddress a = remote.getAddress();
        if (max <= base || a == null || !a.isLoopbackAddress()) {
            return base;
        }
        int mtu = loopbackMtu;
        if (mtu == 0) {
            mtu = lookUpLoopbackMtu(a);
            loopbackMtu = mtu;
        }
        int header = a instanceof Inet6Address ? 48 : 28;
        return mtu < 0 ? base : Math.max(base, Math.min(max, mtu - header));
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
