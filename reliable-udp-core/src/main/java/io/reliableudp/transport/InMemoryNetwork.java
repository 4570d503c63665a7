package io.reliableudp.transport;

import io.reliableudp.link.DatagramConsumer;
import io.reliableudp.link.LinkConditioner;
import io.reliableudp.link.LinkConditionerConfig;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * An in-memory datagram network: {@link DatagramPort}s found by address, so that real nodes (the
 * whole protocol stack: handshake, encryption, the message layer) talk without sockets. Start a node
 * on a port with {@link ReliableUdpNode#start(NodeConfig, NodeListener, DatagramPort)}.
 *
 * <p>A datagram sent to an address is copied and queued at the receiving port; it is delivered on
 * the receiving node's own I/O loop, never on the sender's thread. Each directed link may carry a
 * {@link LinkConditioner} ({@link #condition}): the sender submits to it, the receiving port releases
 * what is due while its loop waits or reads. A datagram to an address with no port is lost (counted
 * in {@link #undeliverable()}), and so is one that finds the receiver's queue full
 * ({@link #QUEUE_LIMIT} datagrams, like a full socket receive buffer; counted in {@link #overflowed()}).
 * Thread-safe; for tests, fuzzing and demos (one copy per datagram, no pooling).
 */
public final class InMemoryNetwork {

    /** Datagrams a port holds unread before it drops new ones, like a full socket receive buffer. */
    public static final int QUEUE_LIMIT = 4096;

    private final ConcurrentHashMap<InetSocketAddress, MemoryPort> ports = new ConcurrentHashMap<>();
    /** Conditioned links, by sender then receiver. */
    private final ConcurrentHashMap<InetSocketAddress, ConcurrentHashMap<InetSocketAddress, Link>> links =
            new ConcurrentHashMap<>();
    private final AtomicInteger nextPort = new AtomicInteger(40_000);
    private final long startNanos = System.nanoTime();
    private final LongAdder undeliverable = new LongAdder();
    private final LongAdder overflowed = new LongAdder();

    /** An empty network. */
    public InMemoryNetwork() {
    }

    /** A port on 127.0.0.1 with a port number nobody uses in this network. */
    public DatagramPort open() throws BindException {
        return open(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    }

    /**
     * A port at {@code address}; port number 0 picks a free one, a wildcard or missing address means
     * 127.0.0.1.
     *
     * @throws BindException when a port of this network already has that address
     */
    public DatagramPort open(InetSocketAddress address) throws BindException {
        InetAddress host = address.getAddress() == null || address.getAddress().isAnyLocalAddress()
                ? InetAddress.getLoopbackAddress() : address.getAddress();
        if (address.getPort() != 0) {
            return register(new InetSocketAddress(host, address.getPort()));
        }
        for (int tries = 0; tries < 65_536; tries++) {
            int port = nextPort.getAndUpdate(p -> p >= 65_535 ? 1024 : p + 1);
            InetSocketAddress candidate = new InetSocketAddress(host, port);
            if (!ports.containsKey(candidate)) {
                try {
                    return register(candidate);
                } catch (BindException raced) {
                    // taken meanwhile: try the next one
                }
            }
        }
        throw new BindException("no free port left on " + host);
    }

    private MemoryPort register(InetSocketAddress address) throws BindException {
        MemoryPort port = new MemoryPort(address);
        if (ports.putIfAbsent(address, port) != null) {
            throw new BindException("Address already in use: " + address);
        }
        // links configured before the port existed apply to it
        for (ConcurrentHashMap<InetSocketAddress, Link> out : links.values()) {
            Link l = out.get(address);
            if (l != null) {
                port.inbound.add(l);
            }
        }
        return port;
    }

    /**
     * Puts a link conditioner on the datagrams from {@code from} to {@code to} (one direction; null
     * removes it, delivering what it still held). The conditioner's seed fixes the fates of the
     * datagrams in the order they are sent. May be called before either port exists and at any time.
     */
    public void condition(InetSocketAddress from, InetSocketAddress to, @Nullable LinkConditionerConfig config) {
        ConcurrentHashMap<InetSocketAddress, Link> out = links.computeIfAbsent(from, k -> new ConcurrentHashMap<>());
        if (config == null) {
            Link old = out.remove(to);
            if (old != null) {
                MemoryPort receiver = ports.get(to);
                if (receiver != null) {
                    receiver.inbound.remove(old);
                }
                old.drain();
            }
            return;
        }
        Link link = new Link(from, to, new LinkConditioner(config));
        Link existing = out.putIfAbsent(to, link);
        if (existing != null) {
            synchronized (existing) {
                existing.conditioner.reconfigure(config);
            }
            return;
        }
        MemoryPort receiver = ports.get(to);
        if (receiver != null) {
            receiver.inbound.add(link);
            receiver.wakeup();
        }
    }

    /** Datagrams sent to an address where no port was open. */
    public long undeliverable() {
        return undeliverable.sum();
    }

    /** Datagrams dropped because the receiving port already held {@link #QUEUE_LIMIT} unread ones. */
    public long overflowed() {
        return overflowed.sum();
    }

    /** The addresses of the open ports. */
    public List<InetSocketAddress> addresses() {
        return List.copyOf(ports.keySet());
    }

    private double seconds(long nanoTime) {
        return (nanoTime - startNanos) / 1e9;
    }

    private long nanoTime(double seconds) {
        return seconds >= 9e9 ? Long.MAX_VALUE : startNanos + (long) (seconds * 1e9);
    }

    /** Hands a datagram to whatever port has the address now (or counts it lost). Any thread. */
    private void deliver(InetSocketAddress from, InetSocketAddress to, byte[] data) {
        MemoryPort receiver = ports.get(to);
        if (receiver == null) {
            undeliverable.increment();
        } else {
            receiver.enqueue(from, data);
        }
    }

    @Override
    public String toString() {
        return "InMemoryNetwork[ports=" + ports.size() + "]";
    }

    private record Datagram(InetSocketAddress from, byte[] data) {
    }

    /** One direction between two addresses with its conditioner; the conditioner is used under the link's monitor. */
    private final class Link implements DatagramConsumer {
        final InetSocketAddress from;
        final InetSocketAddress to;
        final LinkConditioner conditioner;

        Link(InetSocketAddress from, InetSocketAddress to, LinkConditioner conditioner) {
            this.from = from;
            this.to = to;
            this.conditioner = conditioner;
        }

        /** The sender's side: the conditioner decides the datagram's fate now. */
        synchronized void submit(byte[] data, int offset, int length) {
            conditioner.submit(data, offset, length, seconds(System.nanoTime()));
        }

        /** The receiver's side: releases what is due; returns the next due time (System.nanoTime), or Long.MAX_VALUE. */
        synchronized long release(long nowNanos) {
            double now = seconds(nowNanos);
            if (conditioner.nextDueTime() <= now) {
                conditioner.poll(now, this);
            }
            return nanoTime(conditioner.nextDueTime());
        }

        synchronized void drain() {
            conditioner.poll(Double.POSITIVE_INFINITY, this);
        }

        @Override
        public void accept(byte[] data, int offset, int length) {
            deliver(from, to, Arrays.copyOfRange(data, offset, offset + length));
        }
    }

    /** A port of this network. */
    private final class MemoryPort implements DatagramPort {
        private final InetSocketAddress address;
        private final ConcurrentLinkedQueue<Datagram> inbox = new ConcurrentLinkedQueue<>();
        private final AtomicInteger queued = new AtomicInteger();
        /** Conditioned links towards this port: released by this port's reader. */
        final CopyOnWriteArrayList<Link> inbound = new CopyOnWriteArrayList<>();
        private final AtomicBoolean signalled = new AtomicBoolean();
        private volatile @Nullable Thread waiter;
        private volatile boolean open = true;

        MemoryPort(InetSocketAddress address) {
            this.address = address;
        }

        void enqueue(InetSocketAddress from, byte[] data) {
            if (!open) {
                undeliverable.increment();
                return;
            }
            if (queued.incrementAndGet() > QUEUE_LIMIT) {
                queued.decrementAndGet();
                overflowed.increment();
                return;
            }
            inbox.add(new Datagram(from, data));
            Thread w = waiter;
            if (w != null) {
                LockSupport.unpark(w);
            }
        }

        /** Moves due datagrams of the conditioned links into the inbox; the earliest next due time. */
        private long releaseDue(long nowNanos) {
            long next = Long.MAX_VALUE;
            for (Link l : inbound) {
                next = Math.min(next, l.release(nowNanos));
            }
            return next;
        }

        @Override
        public @Nullable InetSocketAddress receive(ByteBuffer into) throws ClosedChannelException {
            if (!open) {
                throw new ClosedChannelException();
            }
            if (!inbound.isEmpty()) {
                releaseDue(System.nanoTime());
            }
            Datagram d = inbox.poll();
            if (d == null) {
                return null;
            }
            queued.decrementAndGet();
            into.put(d.data(), 0, Math.min(d.data().length, into.remaining()));
            return d.from();
        }

        @Override
        public boolean send(ByteBuffer datagram, InetSocketAddress to) throws ClosedChannelException {
            if (!open) {
                throw new ClosedChannelException();
            }
            byte[] data = new byte[datagram.remaining()];
            datagram.get(data);
            ConcurrentHashMap<InetSocketAddress, Link> out = links.get(address);
            Link link = out == null ? null : out.get(to);
            if (link == null) {
                deliver(address, to, data);
            } else {
                link.submit(data, 0, data.length);
                MemoryPort receiver = ports.get(to);
                if (receiver != null) {
                    receiver.wakeup(); // its loop recomputes when the next datagram is due
                }
            }
            return true;
        }

        @Override
        public void awaitReadable(long timeoutNanos) throws ClosedChannelException {
            if (!open) {
                throw new ClosedChannelException();
            }
            long deadline = System.nanoTime() + timeoutNanos;
            waiter = Thread.currentThread();
            try {
                while (open && !signalled.getAndSet(false)) {
                    long now = System.nanoTime();
                    long due = inbound.isEmpty() ? Long.MAX_VALUE : releaseDue(now);
                    if (!inbox.isEmpty() || deadline - now <= 0) {
                        return;
                    }
                    long wait = due == Long.MAX_VALUE ? deadline - now : Math.min(deadline - now, due - now);
                    if (wait > 0) {
                        LockSupport.parkNanos(this, wait);
                    }
                }
            } finally {
                waiter = null;
            }
        }

        @Override
        public void wakeup() {
            signalled.set(true);
            Thread w = waiter;
            if (w != null) {
                LockSupport.unpark(w);
            }
        }

        @Override
        public InetSocketAddress localAddress() {
            return address;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            if (!open) {
                return;
            }
            open = false;
            ports.remove(address, this);
            int lost = 0;
            while (inbox.poll() != null) {
                lost++;
            }
            undeliverable.add(lost);
            wakeup();
        }

        @Override
        public String toString() {
            return "InMemoryNetwork.Port[" + address + (open ? "" : ", closed") + "]";
        }
    }
}
