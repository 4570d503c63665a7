package io.reliableudp.transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The traffic class of one UDP socket's sends ({@link UdpDatagramPort}): the socket is opened with the
 * node's {@code IP_TOS} ({@link NodeConfig#trafficClass()}; on an IPv6 or dual-stack socket the JDK sets
 * the IPv6 traffic class and, for IPv4 destinations, the TOS byte too), so a send of the node's class
 * costs nothing more. A send with another TOS byte sets the option before it: one {@code setsockopt}
 * system call when the class changes from the previous send. From the first such send on (from the start
 * when the node's channels have classes of their own) every send takes a lock, so that concurrent senders
 * cannot change the option under each other's datagram.
 */
final class SocketMarking {

    private final DatagramChannel channel;
    /** The TOS byte the socket was opened with: what {@link #send(ByteBuffer, InetSocketAddress)} marks. */
    final int defaultTos;
    /** Set once sends may carry another class than {@link #defaultTos}: from then on every send takes {@link #lock}. */
    private volatile boolean marking;
    /** Held around setting the socket's TOS and the send it is for, once {@link #marking}. */
    private final ReentrantLock lock = new ReentrantLock();
    /** The socket's TOS byte now (guarded by {@link #lock} once {@link #marking}). */
    private int currentTos;

    /**
     * Sets the socket's {@code IP_TOS} to {@code tos} (0..255; 0: left as the OS has it); {@code marking}:
     * sends will carry other classes too (they lock from the start).
     */
    SocketMarking(DatagramChannel channel, int tos, boolean marking) throws IOException {
        if (tos != 0) {
            channel.setOption(StandardSocketOptions.IP_TOS, tos);
        }
        this.channel = channel;
        this.defaultTos = tos;
        this.currentTos = tos;
        this.marking = marking;
    }

    /** Whether any of the node's channels has a class other than the node's. */
    static boolean channelClasses(NodeConfig config) {
        int tos = config.trafficClass().tos();
        return config.message().channels().stream().anyMatch(c -> c.trafficClass().isPresent() && c.trafficClass().get().tos() != tos);
    }

    /** Whether sends may carry other classes than the socket's own (they lock). */
    boolean marking() {
        return marking;
    }

    /** Sends with the socket's own class; false when the send buffer was full. */
    boolean send(ByteBuffer datagram, InetSocketAddress to) throws IOException {
        if (marking) {
            return send(datagram, to, defaultTos);
        }
        return channel.send(datagram, to) > 0 || !datagram.hasRemaining();
    }

    /** Sends with the TOS byte {@code tos}; false when the send buffer was full. */
    boolean send(ByteBuffer datagram, InetSocketAddress to, int tos) throws IOException {
        if (!marking) {
            if (tos == defaultTos) {
                return channel.send(datagram, to) > 0 || !datagram.hasRemaining();
            }
            // the first other class (a port opened without the node's channel classes): a send racing
            // this very change may leave with the new class; every later one goes under the lock
            marking = true;
        }
        lock.lock();
        try {
            if (tos != currentTos) {
                channel.setOption(StandardSocketOptions.IP_TOS, tos); // one setsockopt per change of class
                currentTos = tos;
            }
            return channel.send(datagram, to) > 0 || !datagram.hasRemaining();
        } finally {
            lock.unlock();
        }
    }
}
