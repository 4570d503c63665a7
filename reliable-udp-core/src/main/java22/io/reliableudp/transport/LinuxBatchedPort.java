package io.reliableudp.transport;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

import static io.reliableudp.transport.Libc.ADDR_BYTES;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A {@link DatagramPort} over one Linux UDP socket driven through the Foreign Function &amp; Memory API:
 * {@code recvmmsg} reads up to {@link #BATCH} datagrams per system call into native slots that
 * {@link #receive} then hands out one by one; the datagrams the I/O loop's own thread sends are queued
 * and leave together by one {@code sendmmsg} when the loop {@linkplain #flush() flushes} (before it
 * waits, and before each {@code recvmmsg}), consecutive same-size datagrams to one address as one UDP
 * GSO send ({@code UDP_SEGMENT}); with {@code UDP_GRO} the kernel hands coalesced segments up as one
 * buffer, which {@link #receive} splits by the segment size it reports. Other threads' sends go out at
 * once ({@code sendto}, under a lock), as with {@link UdpDatagramPort}. Wake-ups go through an eventfd
 * polled beside the socket. The socket is opened with the node's traffic class ({@code IP_TOS}, and
 * {@code IPV6_TCLASS} on an IPv6 socket); a datagram of another class carries its own as a cmsg, and a
 * GSO run holds datagrams of one class only.
 *
 * <p>The socket's descriptor is closed only when no thread is inside a system call on it (a count of
 * users with a closed bit), so that a closing port can never make a blocked call read a reused
 * descriptor. Native memory belongs to an automatic arena: a port closed while another thread still
 * holds it cannot free memory under that thread. Errors of single datagrams are counted and logged at
 * most every {@link #LOG_EVERY_NANOS}; none is thrown out of the loop except the port's own closing.
 *
 * <p>Compiled for Java 22+ (the multi-release JAR's {@code META-INF/versions/22}); created only through
 * {@link BatchedPorts}. No dedicated sockets ({@link #dedicate} refuses: peers share the socket).
 */
final class LinuxBatchedPort implements BatchedPort {

    private static final System.Logger LOG = System.getLogger(LinuxBatchedPort.class.getName());

    /** Datagrams (or GRO buffers) one {@code recvmmsg} may read. */
    static final int BATCH = 32;
    /** Messages one {@code sendmmsg} may carry (each a datagram or a GSO run). */
    static final int SEND_BATCH = 64;
    /** Bytes the send queue holds before it is flushed. */
    static final int SEND_QUEUE_BYTES = 256 * 1024;
    /** A GRO buffer: the largest coalesced datagram the kernel hands up. */
    static final int GRO_SLOT_BYTES = 65_536;
    /** Most segments of one GSO send (the kernel's {@code UDP_MAX_SEGMENTS} is 64 on older kernels). */
    static final int GSO_MAX_SEGMENTS = 64;
    /** Most bytes of one GSO send (under a UDP datagram's 65,507). */
    static final int GSO_MAX_BYTES = 65_000;
    /** Shortest gap between two error log lines of one port. */
    static final long LOG_EVERY_NANOS = 10_000_000_000L;

    private static final int MMSG = 64; // struct mmsghdr: msghdr (56) + msg_len (4) + padding
    private static final int MSG_LEN = 56;
    private static final int CMSG_BYTES = 32; // a receive slot's control: CMSG_SPACE(int) = 24, rounded
    /** A send's control: a GSO cmsg and a TOS cmsg, each CMSG_SPACE(int) = 24 (the u16 segment size rounds up to it). */
    private static final int SEND_CMSG_BYTES = 48;
    private static final int CMSG_SPACE_INT = 24;

    private final Libc libc;
    private final int fd;
    private final int eventFd;
    private final int family;
    private final InetSocketAddress localAddress;
    private final InetSocketAddress bind;
    private final int receiveBufferBytes;
    private final int sendBufferBytes;
    private final boolean reusePort;
    private final boolean gro;
    private final int slotBytes;
    private final int maxDatagram;
    /** The TOS byte the socket was opened with ({@link NodeConfig#trafficClass()}): sends of another class carry a cmsg. */
    private final int defaultTos;
    /** Set by close: further calls see the port closed. */
    private final AtomicBoolean closing = new AtomicBoolean();
    /** Threads inside a system call on the descriptors, plus {@link #CLOSED} once closed. */
    private final AtomicInteger users = new AtomicInteger();
    private static final int CLOSED = 1 << 30;
    /** The I/O loop's thread (the first that receives or waits): its sends are queued. */
    private volatile @Nullable Thread owner;

    // ---- receive (loop only)
    private final MemorySegment recvMsgs;
    private final MemorySegment recvNames;
    private final MemorySegment recvControl;
    private final MemorySegment recvSlots;
    private final ByteBuffer recvView;
    private final MemorySegment loopErrno;
    private final MemorySegment pollFds;
    private final MemorySegment drain;
    private int recvCount;
    private int recvIndex;
    private int segOffset;
    private int segSize;
    private int recvLength;
    private @Nullable InetSocketAddress recvFrom;
    private final AddressCache senders = new AddressCache();

    // ---- send queue (loop only)
    private final MemorySegment sendMsgs;
    private final MemorySegment sendIov;
    private final MemorySegment sendNames;
    private final MemorySegment sendControl;
    private final MemorySegment sendData;
    private final ByteBuffer sendView;
    private final long sendDataAddress;
    private final AddressEncoder loopEncoder;
    private final InetSocketAddress[] qTo = new InetSocketAddress[SEND_BATCH];
    private final int[] qStart = new int[SEND_BATCH];
    private final int[] qLen = new int[SEND_BATCH];
    private final int[] qSeg = new int[SEND_BATCH];
    private final int[] qCount = new int[SEND_BATCH];
    private final boolean[] qClosed = new boolean[SEND_BATCH];
    /** Each queued message's TOS byte, and whether its destination is IPv4 (IP_TOS, else IPV6_TCLASS). */
    private final int[] qTos = new int[SEND_BATCH];
    private final boolean[] qV4 = new boolean[SEND_BATCH];
    private int queued;
    private int queuedBytes;
    /** Datagrams the loop's flushes lost since the last {@link #flush()} returned them. */
    private int unreportedFailures;
    /** Largest segment size GSO still takes (lowered when the kernel refuses one, e.g. over a path MTU). */
    private int gsoMaxSegment;

    // ---- sends from other threads (under directLock)
    private final Object directLock = new Object();
    private final MemorySegment directData;
    private final ByteBuffer directView;
    private final MemorySegment directName;
    private final MemorySegment directErrno;
    private final AddressEncoder directEncoder;
    /** One message for a marked send of another thread: sendmmsg of one, with a TOS cmsg. */
    private final MemorySegment directMsg;
    private final MemorySegment directIov;
    private final MemorySegment directControl;

    // ---- wake-ups
    private final AtomicBoolean signalled = new AtomicBoolean();
    private final MemorySegment one;

    // ---- counters (read by stats/tests from any thread)
    private volatile long syscallsReceive;
    private volatile long syscallsSend;
    private volatile long datagramsIn;
    private volatile long gsoSends;
    private volatile long groBuffers;
    private volatile long errors;
    private long lastLog;
    private long unloggedErrors;

    private LinuxBatchedPort(Libc libc, int fd, int eventFd, int family, InetSocketAddress bind, int receiveBufferBytes,
                             int sendBufferBytes, boolean reusePort, boolean gro, int slotBytes, int maxDatagram, int tos)
            throws IOException {
        this.maxDatagram = maxDatagram;
        this.defaultTos = tos;
        this.libc = libc;
        this.fd = fd;
        this.eventFd = eventFd;
        this.family = family;
        this.bind = bind;
        this.receiveBufferBytes = receiveBufferBytes;
        this.sendBufferBytes = sendBufferBytes;
        this.reusePort = reusePort;
        this.gro = gro;
        this.slotBytes = slotBytes;
        this.gsoMaxSegment = Libc.GSO_WORKS ? 65_535 : 0;
        Arena arena = Arena.ofAuto();
        this.recvMsgs = arena.allocate((long) MMSG * BATCH, 8);
        this.recvNames = arena.allocate((long) ADDR_BYTES * BATCH, 8);
        this.recvControl = arena.allocate((long) CMSG_BYTES * BATCH, 8);
        this.recvSlots = arena.allocate((long) slotBytes * BATCH, 64);
        this.recvView = recvSlots.asByteBuffer();
        MemorySegment recvIov = arena.allocate(16L * BATCH, 8);
        for (int i = 0; i < BATCH; i++) {
            long m = (long) i * MMSG;
            recvIov.set(ADDRESS, i * 16L, recvSlots.asSlice((long) i * slotBytes, slotBytes));
            recvIov.set(JAVA_LONG, i * 16L + 8, slotBytes);
            recvMsgs.set(ADDRESS, m, recvNames.asSlice((long) i * ADDR_BYTES, ADDR_BYTES));
            recvMsgs.set(ADDRESS, m + 16, recvIov.asSlice(i * 16L, 16));
            recvMsgs.set(JAVA_LONG, m + 24, 1);
            recvMsgs.set(ADDRESS, m + 32, gro ? recvControl.asSlice((long) i * CMSG_BYTES, CMSG_BYTES) : MemorySegment.NULL);
        }
        this.loopErrno = libc.errnoSegment(arena);
        this.pollFds = arena.allocate(16, 8);
        pollFds.set(JAVA_INT, 0, fd);
        pollFds.set(JAVA_SHORT, 4, (short) Libc.POLLIN);
        pollFds.set(JAVA_INT, 8, eventFd);
        pollFds.set(JAVA_SHORT, 12, (short) Libc.POLLIN);
        this.drain = arena.allocate(8, 8);
        this.one = arena.allocate(8, 8);
        one.set(JAVA_LONG, 0, 1);

        this.sendMsgs = arena.allocate((long) MMSG * SEND_BATCH, 8);
        this.sendIov = arena.allocate(16L * SEND_BATCH, 8);
        this.sendNames = arena.allocate((long) ADDR_BYTES * SEND_BATCH, 8);
        this.sendControl = arena.allocate((long) SEND_CMSG_BYTES * SEND_BATCH, 8);
        this.sendData = arena.allocate(SEND_QUEUE_BYTES, 64);
        this.sendView = sendData.asByteBuffer();
        this.sendDataAddress = sendData.address();
        for (int i = 0; i < SEND_BATCH; i++) {
            long m = (long) i * MMSG;
            sendMsgs.set(ADDRESS, m, sendNames.asSlice((long) i * ADDR_BYTES, ADDR_BYTES));
            sendMsgs.set(ADDRESS, m + 16, sendIov.asSlice(i * 16L, 16));
            sendMsgs.set(JAVA_LONG, m + 24, 1);
        }
        this.loopEncoder = new AddressEncoder(family);
        this.directData = arena.allocate(65_536, 64);
        this.directView = directData.asByteBuffer();
        this.directName = arena.allocate(ADDR_BYTES, 8);
        this.directErrno = libc.errnoSegment(arena);
        this.directEncoder = new AddressEncoder(family);
        this.directMsg = arena.allocate(MMSG, 8);
        this.directIov = arena.allocate(16, 8);
        this.directControl = arena.allocate(CMSG_SPACE_INT, 8);
        directIov.set(ADDRESS, 0, directData);
        directMsg.set(ADDRESS, 0, directName);
        directMsg.set(ADDRESS, 16, directIov);
        directMsg.set(JAVA_LONG, 24, 1);
        directMsg.set(ADDRESS, 32, directControl);
        this.localAddress = libc.localAddress(fd, arena);
    }

    /**
     * Opens a batched port bound to {@code bind}: a wildcard address gives a dual-stack IPv6 socket (an
     * IPv4 socket where IPv6 is missing), a specific one a socket of its family.
     *
     * @param maxDatagram the largest datagram the node takes: a receive slot holds one more byte, so
     *     that a longer datagram shows as too large rather than cut to fit
     */
    static LinuxBatchedPort open(InetSocketAddress bind, int receiveBufferBytes, int sendBufferBytes, boolean reusePort,
                                 int maxDatagram, boolean wantGro, int tos) throws IOException {
        Libc libc = Libc.get();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = libc.errnoSegment(arena);
            boolean wildcard = bind.getAddress() == null || bind.getAddress().isAnyLocalAddress();
            int family = !wildcard && bind.getAddress() instanceof Inet4Address ? Libc.AF_INET : Libc.AF_INET6;
            int fd = libc.socket(errno, family);
            if (fd < 0 && wildcard) {
                family = Libc.AF_INET; // no IPv6 on this host
                fd = libc.socket(errno, family);
            }
            if (fd < 0) {
                throw libc.error("socket", errno);
            }
            int efd = -1;
            try {
                if (family == Libc.AF_INET6 && wildcard) {
                    libc.setInt(errno, fd, Libc.IPPROTO_IPV6, Libc.IPV6_V6ONLY, 0, "IPV6_V6ONLY");
                }
                setBuffer(libc, errno, fd, Libc.SO_RCVBUF, "socketReceiveBufferSize", receiveBufferBytes);
                setBuffer(libc, errno, fd, Libc.SO_SNDBUF, "socketSendBufferSize", sendBufferBytes);
                if (reusePort) {
                    libc.setInt(errno, fd, Libc.SOL_SOCKET, Libc.SO_REUSEPORT, 1, "SO_REUSEPORT");
                }
                // don't fragment, as the plain port (path-MTU discovery: a probe passes whole or not at all):
                // IP_MTU_DISCOVER / IPV6_MTU_DISCOVER = IP_PMTUDISC_DO
                libc.trySetInt(errno, fd, Libc.IPPROTO_IP, 10, 2);
                if (family == Libc.AF_INET6) {
                    libc.trySetInt(errno, fd, Libc.IPPROTO_IPV6, 23, 2);
                }
                if (tos != 0) {
                    // the node's class, as the JDK sets it on a DatagramChannel: IP_TOS, and on an IPv6 or
                    // dual-stack socket the IPv6 traffic class as well (IP_TOS then marks IPv4 destinations)
                    libc.setInt(errno, fd, Libc.IPPROTO_IP, Libc.IP_TOS, tos, "IP_TOS");
                    if (family == Libc.AF_INET6) {
                        libc.setInt(errno, fd, Libc.IPPROTO_IPV6, Libc.IPV6_TCLASS, tos, "IPV6_TCLASS");
                    }
                }
                boolean gro = wantGro && libc.trySetInt(errno, fd, Libc.SOL_UDP, Libc.UDP_GRO, 1);
                MemorySegment sa = arena.allocate(ADDR_BYTES, 8);
                int len;
                if (wildcard) {
                    // the wildcard of the socket's family (on IPv6, :: with V6ONLY off: IPv4 senders too)
                    sa.set(JAVA_SHORT, 0, (short) family);
                    sa.set(JAVA_SHORT, 2, Short.reverseBytes((short) bind.getPort()));
                    len = family == Libc.AF_INET ? 16 : 28;
                } else {
                    len = new AddressEncoder(family).encode(bind, sa, 0);
                }
                if (len < 0) {
                    throw new IOException("cannot bind " + bind + " on a socket of family " + family);
                }
                libc.bind(errno, fd, sa, len, bind);
                efd = libc.eventFd(errno);
                int slot = gro ? GRO_SLOT_BYTES : Math.max(2048, (maxDatagram + 1 + 63) & ~63);
                return new LinuxBatchedPort(libc, fd, efd, family, bind, receiveBufferBytes, sendBufferBytes, reusePort,
                        gro, slot, maxDatagram, tos);
            } catch (IOException | RuntimeException e) {
                libc.close(fd);
                if (efd >= 0) {
                    libc.close(efd);
                }
                throw e;
            }
        }
    }

    private static void setBuffer(Libc libc, MemorySegment errno, int fd, int option, String field, int requested)
            throws IOException {
        if (requested <= 0) {
            return;
        }
        libc.setInt(errno, fd, Libc.SOL_SOCKET, option, requested, field);
        int granted = libc.getInt(errno, fd, Libc.SOL_SOCKET, option);
        if (granted >= 0 && granted < requested) {
            LOG.log(Level.WARNING, "{0}: asked the kernel for {1} bytes, got {2} (raise net.core.{3}_max to allow more)",
                    field, requested, granted, option == Libc.SO_RCVBUF ? "rmem" : "wmem");
        }
    }

    // ------------------------------------------------------------------ descriptor use

    private void enter() throws ClosedChannelException {
        while (true) {
            int v = users.get();
            if ((v & CLOSED) != 0) {
                throw new ClosedChannelException();
            }
            if (users.compareAndSet(v, v + 1)) {
                return;
            }
        }
    }

    private void exit() {
        if (users.decrementAndGet() == CLOSED) {
            release(); // the last user after close: nobody is inside a call on the descriptors any more
        }
    }

    private void release() {
        libc.close(fd);
        libc.close(eventFd);
    }

    // ------------------------------------------------------------------ receive

    @Override
    public @Nullable InetSocketAddress receive(ByteBuffer into) throws IOException {
        if (owner == null) {
            owner = Thread.currentThread();
        }
        while (true) {
            if (recvIndex < recvCount) {
                InetSocketAddress from = next(into);
                if (from != null) {
                    return from;
                }
                continue; // a datagram from an address of no family this port knows: skipped
            }
            if (closing.get()) {
                throw new ClosedChannelException();
            }
            flushQueue(); // the loop reads on: what it queued goes first
            if (!read()) {
                return null;
            }
        }
    }

    /** Hands out the next datagram (or GRO segment) of the batch read; null when its sender is unreadable. */
    private @Nullable InetSocketAddress next(ByteBuffer into) {
        int i = recvIndex;
        if (segOffset == 0) {
            long m = (long) i * MMSG;
            recvLength = recvMsgs.get(JAVA_INT, m + MSG_LEN);
            segSize = recvLength;
            if (gro && recvMsgs.get(JAVA_LONG, m + 40) >= 20) {
                long c = (long) i * CMSG_BYTES;
                if (recvControl.get(JAVA_INT, c + 8) == Libc.SOL_UDP && recvControl.get(JAVA_INT, c + 12) == Libc.UDP_GRO) {
                    int size = recvControl.get(JAVA_INT, c + 16);
                    if (size > 0 && size < recvLength) {
                        segSize = size;
                        groBuffers++;
                    }
                }
            }
            recvFrom = senders.decode(recvNames, (long) i * ADDR_BYTES);
        }
        int n = Math.min(segSize, recvLength - segOffset);
        int copy = Math.min(n, into.remaining());
        into.put(into.position(), recvView, i * slotBytes + segOffset, copy);
        into.position(into.position() + copy);
        segOffset += n;
        InetSocketAddress from = recvFrom;
        if (segOffset >= recvLength) {
            recvIndex++;
            segOffset = 0;
            recvFrom = null;
        }
        datagramsIn++;
        return from;
    }

    /** One {@code recvmmsg}: false when nothing is waiting. */
    private boolean read() throws IOException {
        for (int i = 0; i < BATCH; i++) {
            long m = (long) i * MMSG;
            recvMsgs.set(JAVA_INT, m + 8, ADDR_BYTES);
            recvMsgs.set(JAVA_LONG, m + 40, gro ? CMSG_BYTES : 0);
            recvMsgs.set(JAVA_INT, m + 48, 0);
        }
        int r;
        enter();
        try {
            r = libc.recvmmsg(loopErrno, fd, recvMsgs, BATCH);
        } finally {
            exit();
        }
        syscallsReceive++;
        recvIndex = 0;
        segOffset = 0;
        if (r > 0) {
            recvCount = r;
            return true;
        }
        recvCount = 0;
        int e = libc.errno(loopErrno);
        if (e != Libc.EAGAIN && e != Libc.EINTR) {
            if (closing.get() || e == Libc.EBADF) {
                throw new ClosedChannelException();
            }
            failed("recvmmsg", e, 0);
        }
        return false;
    }

    // ------------------------------------------------------------------ send

    @Override
    public boolean send(ByteBuffer datagram, InetSocketAddress to) throws IOException {
        if (closing.get()) {
            throw new ClosedChannelException();
        }
        if (Thread.currentThread() == owner) {
            return queue(datagram, to);
        }
        return sendNow(datagram, to, defaultTos);
    }

    /**
     * Sends with the TOS byte {@code tos}: the loop's queued sends carry it as an {@code IP_TOS} (IPv4
     * destination) or {@code IPV6_TCLASS} cmsg, another thread's send as one {@code sendmmsg} with that
     * cmsg. The socket's own class costs nothing more than {@link #send(ByteBuffer, InetSocketAddress)}.
     */
    @Override
    public boolean send(ByteBuffer datagram, InetSocketAddress to, int tos) throws IOException {
        if (tos == defaultTos) {
            return send(datagram, to);
        }
        if (closing.get()) {
            throw new ClosedChannelException();
        }
        if (Thread.currentThread() == owner) {
            return queue(datagram, to, tos);
        }
        return sendNow(datagram, to, tos);
    }

    private boolean queue(ByteBuffer datagram, InetSocketAddress to) throws IOException {
        return queue(datagram, to, defaultTos);
    }

    /** The loop's send: into the queue, merged into the last message as a GSO segment where it can be. */
    private boolean queue(ByteBuffer datagram, InetSocketAddress to, int tos) throws IOException {
        int len = datagram.remaining();
        int n = queued;
        if (n > 0) {
            int last = n - 1;
            if (qTo[last] == to && qTos[last] == tos && !qClosed[last] && len > 0 && len <= qSeg[last] && qSeg[last] <= gsoMaxSegment
                    && qCount[last] < GSO_MAX_SEGMENTS && qLen[last] + len <= GSO_MAX_BYTES
                    && queuedBytes + len <= SEND_QUEUE_BYTES) {
                sendView.put(queuedBytes, datagram, datagram.position(), len);
                datagram.position(datagram.limit());
                queuedBytes += len;
                qLen[last] += len;
                qCount[last]++;
                qClosed[last] = len < qSeg[last]; // a shorter segment ends a GSO run
                return true;
            }
        }
        if (n == SEND_BATCH || queuedBytes + len > SEND_QUEUE_BYTES) {
            flushQueue();
            n = 0;
        }
        int nameLen = loopEncoder.encode(to, sendNames, (long) n * ADDR_BYTES);
        if (nameLen < 0) {
            failed("send to " + to, Libc.EAFNOSUPPORT, 1);
            return false;
        }
        sendMsgs.set(JAVA_INT, (long) n * MMSG + 8, nameLen);
        sendView.put(queuedBytes, datagram, datagram.position(), len);
        datagram.position(datagram.limit());
        qTo[n] = to;
        qStart[n] = queuedBytes;
        qLen[n] = len;
        qSeg[n] = len;
        qCount[n] = 1;
        qClosed[n] = false;
        qTos[n] = tos;
        qV4[n] = tos != defaultTos && isV4(to);
        queuedBytes += len;
        queued = n + 1;
        return true;
    }

    /**
     * Another thread's send: at once, through this port's own buffer; of the socket's class by
     * {@code sendto}, of another by a {@code sendmmsg} of one message with its TOS cmsg.
     */
    private boolean sendNow(ByteBuffer datagram, InetSocketAddress to, int tos) throws IOException {
        int len = datagram.remaining();
        boolean marked = tos != defaultTos;
        synchronized (directLock) {
            int nameLen = directEncoder.encode(to, directName, 0);
            if (nameLen < 0) {
                failed("send to " + to, Libc.EAFNOSUPPORT, 1);
                return false;
            }
            directView.put(0, datagram, datagram.position(), len);
            if (marked) {
                directIov.set(JAVA_LONG, 8, len);
                directMsg.set(JAVA_INT, 8, nameLen);
                directMsg.set(JAVA_LONG, 40, tosCmsg(directControl, 0, tos, isV4(to)));
                directMsg.set(JAVA_INT, 48, 0);
            }
            long r;
            enter();
            try {
                // sendmmsg answers how many of its one message left: 1, or -1 on an error
                r = marked ? libc.sendmmsg(directErrno, fd, directMsg, 1) - 1
                        : libc.sendto(directErrno, fd, directData, len, directName, nameLen);
            } finally {
                exit();
            }
            if (r >= 0) {
                datagram.position(datagram.limit());
                return true;
            }
            int e = libc.errno(directErrno);
            if (e == Libc.EBADF && closing.get()) {
                throw new ClosedChannelException();
            }
            if (e != Libc.EAGAIN) {
                failed((marked ? "sendmmsg to " : "sendto ") + to, e, 1);
            }
            return false;
        }
    }

    /** Writes a TOS cmsg at {@code control[off]}: IP_TOS for an IPv4 destination, else IPV6_TCLASS; its space. */
    private static int tosCmsg(MemorySegment control, long off, int tos, boolean v4) {
        control.set(JAVA_LONG, off, 20); // CMSG_LEN(sizeof(int))
        control.set(JAVA_INT, off + 8, v4 ? Libc.IPPROTO_IP : Libc.IPPROTO_IPV6);
        control.set(JAVA_INT, off + 12, v4 ? Libc.IP_TOS : Libc.IPV6_TCLASS);
        control.set(JAVA_INT, off + 16, tos);
        return CMSG_SPACE_INT;
    }

    /** An IPv4 destination (also on a dual-stack socket, where it is ::ffff:a.b.c.d and IP_TOS marks it). */
    private static boolean isV4(InetSocketAddress to) {
        return to.getAddress() instanceof Inet4Address;
    }

    @Override
    public int flush() {
        if (Thread.currentThread() != owner) {
            return 0;
        }
        flushQueue();
        int f = unreportedFailures;
        unreportedFailures = 0;
        return f;
    }

    /** Sends the queue by {@code sendmmsg} (loop only); lost datagrams are added to {@link #unreportedFailures}. */
    private void flushQueue() {
        int n = queued;
        if (n == 0) {
            return;
        }
        queued = 0;
        queuedBytes = 0;
        for (int i = 0; i < n; i++) {
            long m = (long) i * MMSG;
            sendIov.set(JAVA_LONG, i * 16L, sendDataAddress + qStart[i]); // raw addresses: no slice object per datagram
            sendIov.set(JAVA_LONG, i * 16L + 8, qLen[i]);
            long c = (long) i * SEND_CMSG_BYTES;
            int control = 0;
            if (qCount[i] > 1) {
                sendControl.set(JAVA_LONG, c, 18); // CMSG_LEN(sizeof(uint16_t))
                sendControl.set(JAVA_INT, c + 8, Libc.SOL_UDP);
                sendControl.set(JAVA_INT, c + 12, Libc.UDP_SEGMENT);
                sendControl.set(JAVA_SHORT, c + 16, (short) qSeg[i]);
                control = CMSG_SPACE_INT; // CMSG_SPACE(sizeof(uint16_t))
                gsoSends++;
            }
            if (qTos[i] != defaultTos) {
                control += tosCmsg(sendControl, c + control, qTos[i], qV4[i]);
            }
            if (control > 0) {
                sendMsgs.set(JAVA_LONG, m + 32, sendControl.address() + c);
                sendMsgs.set(JAVA_LONG, m + 40, control);
            } else {
                sendMsgs.set(ADDRESS, m + 32, MemorySegment.NULL);
                sendMsgs.set(JAVA_LONG, m + 40, 0);
            }
            sendMsgs.set(JAVA_INT, m + 48, 0);
        }
        int done = 0;
        while (done < n) {
            int r;
            try {
                enter();
            } catch (ClosedChannelException e) {
                return; // closing: nothing goes out any more
            }
            try {
                r = libc.sendmmsg(loopErrno, fd, done == 0 ? sendMsgs : sendMsgs.asSlice((long) done * MMSG), n - done);
            } finally {
                exit();
            }
            syscallsSend++;
            if (r > 0) {
                done += r;
                continue;
            }
            int e = libc.errno(loopErrno);
            if (e == Libc.EINTR) {
                continue;
            }
            if (e == Libc.EAGAIN) {
                int lost = 0;
                for (int i = done; i < n; i++) {
                    lost += qCount[i];
                }
                unreportedFailures += lost; // the send buffer is full: the rest is lost, as on the wire
                return;
            }
            if (qCount[done] > 1 && (e == Libc.EINVAL || e == Libc.EIO || e == Libc.EMSGSIZE)) {
                // the kernel refused this segment size for GSO (a path MTU under it): never again, and
                // these segments one by one
                gsoMaxSegment = Math.min(gsoMaxSegment, qSeg[done] - 1);
                LOG.log(Level.DEBUG, () -> "GSO refused (errno " + e + ") on " + localAddress + "; segments sent one by one");
                sendSegments(done);
            } else {
                failed("sendmmsg to " + qTo[done], e, qCount[done]);
                unreportedFailures += qCount[done];
            }
            done++;
        }
        for (int i = 0; i < n; i++) {
            qTo[i] = null;
        }
    }

    /**
     * Sends the segments of queued message {@code i} one by one (GSO refused): its own message slot,
     * re-pointed at each segment in turn, with its TOS cmsg and without the GSO one.
     */
    private void sendSegments(int i) {
        long m = (long) i * MMSG;
        long c = (long) i * SEND_CMSG_BYTES;
        if (qTos[i] != defaultTos) {
            sendMsgs.set(JAVA_LONG, m + 32, sendControl.address() + c);
            sendMsgs.set(JAVA_LONG, m + 40, tosCmsg(sendControl, c, qTos[i], qV4[i]));
        } else {
            sendMsgs.set(ADDRESS, m + 32, MemorySegment.NULL);
            sendMsgs.set(JAVA_LONG, m + 40, 0);
        }
        MemorySegment one = sendMsgs.asSlice(m, MMSG);
        for (int off = 0; off < qLen[i]; off += qSeg[i]) {
            int len = Math.min(qSeg[i], qLen[i] - off);
            sendIov.set(JAVA_LONG, i * 16L, sendDataAddress + qStart[i] + off);
            sendIov.set(JAVA_LONG, i * 16L + 8, len);
            int r;
            try {
                enter();
            } catch (ClosedChannelException e) {
                return;
            }
            try {
                r = libc.sendmmsg(loopErrno, fd, one, 1);
            } finally {
                exit();
            }
            syscallsSend++;
            if (r != 1) {
                failed("sendmmsg to " + qTo[i], libc.errno(loopErrno), 1);
                unreportedFailures++;
            }
        }
    }

    /** Counts a lost datagram and logs, at most once per {@link #LOG_EVERY_NANOS} (with the count since). */
    private void failed(String what, int errno, int datagrams) {
        synchronized (this) {
            errors += Math.max(1, datagrams);
            unloggedErrors += Math.max(1, datagrams);
            long now = System.nanoTime();
            if (lastLog != 0 && now - lastLog < LOG_EVERY_NANOS) {
                return;
            }
            lastLog = now == 0 ? 1 : now;
            long count = unloggedErrors;
            unloggedErrors = 0;
            LOG.log(Level.WARNING, "{0} on {1} failed: {2} (errno {3}); {4} datagram error(s) since the last such line",
                    what, localAddress, Libc.describe(errno), errno, count);
        }
    }

    // ------------------------------------------------------------------ wait and wake

    @Override
    public void awaitReadable(long timeoutNanos) throws IOException {
        if (owner == null) {
            owner = Thread.currentThread();
        }
        flushQueue();
        if (closing.get()) {
            throw new ClosedChannelException();
        }
        if (recvIndex < recvCount) {
            return; // datagrams of the last batch are still to be handed out
        }
        int ms = timeoutNanos <= 0 ? 0 : (int) Math.min(Integer.MAX_VALUE, Math.max(1, (timeoutNanos + 999_999) / 1_000_000));
        pollFds.set(JAVA_SHORT, 6, (short) 0);
        pollFds.set(JAVA_SHORT, 14, (short) 0);
        int r;
        enter();
        try {
            r = libc.poll(loopErrno, pollFds, 2, ms);
            if (r > 0 && pollFds.get(JAVA_SHORT, 14) != 0) {
                libc.read(eventFd, drain, 8); // reads the counter to zero
                signalled.set(false); // after the read: a later wake-up writes again
            }
        } finally {
            exit();
        }
        if (closing.get()) {
            throw new ClosedChannelException();
        }
        if (r < 0) {
            int e = libc.errno(loopErrno);
            if (e != Libc.EINTR) {
                failed("poll", e, 0);
            }
        }
    }

    @Override
    public void wakeup() {
        if (signalled.get() || signalled.getAndSet(true)) {
            return; // the eventfd is set and the loop has not read it yet
        }
        signal();
    }

    private void signal() {
        try {
            enter();
        } catch (ClosedChannelException e) {
            return; // closed: there is no wait left to end
        }
        try {
            libc.write(eventFd, one, 8);
        } finally {
            exit();
        }
    }

    // ------------------------------------------------------------------ the rest

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public DatagramPort sibling() throws IOException {
        if (!reusePort) {
            throw new IOException("the port " + localAddress + " was opened without SO_REUSEPORT: it cannot be shared");
        }
        InetSocketAddress same = bind.getAddress() == null ? new InetSocketAddress(localAddress.getPort())
                : new InetSocketAddress(bind.getAddress(), localAddress.getPort());
        return open(same, receiveBufferBytes, sendBufferBytes, true, maxDatagram, gro, defaultTos);
    }

    /**
     * Sets an int option on this port's socket as {@code setsockopt(2)} takes it: the way to mirror a
     * socket option the plain port sets through {@link java.net.StandardSocketOptions} (e.g. IP_TOS:
     * level {@link Libc#IPPROTO_IP} option 1; IP_MTU_DISCOVER: option 10, value 2 = don't fragment;
     * IPV6_TCLASS: level {@link Libc#IPPROTO_IPV6} option 67; IPV6_MTU_DISCOVER: option 23). Any thread.
     *
     * @return false when the kernel refuses it (or the port is closed)
     */
    @Override
    public boolean setOption(int level, int option, int value) {
        try {
            enter();
        } catch (ClosedChannelException e) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = libc.errnoSegment(arena);
            boolean ok = libc.trySetInt(errno, fd, level, option, value);
            if (!ok) {
                int e = libc.errno(errno);
                LOG.log(Level.DEBUG, () -> "setsockopt(" + level + ", " + option + ") on " + localAddress + " refused: errno " + e);
            }
            return ok;
        } finally {
            exit();
        }
    }

    @Override
    public boolean isOpen() {
        return !closing.get();
    }

    @Override
    public void close() {
        if (Thread.currentThread() == owner && !closing.get()) {
            flushQueue(); // a loop that closes its own port: what it queued (goodbyes) still goes out
        }
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        signal(); // a loop blocked in poll returns and sees the port closed
        int before = users.getAndAdd(CLOSED);
        if (before == 0) {
            release();
        }
    }

    @Override
    public String kind() {
        return "batched (recvmmsg/sendmmsg" + (gsoMaxSegment > 0 ? ", GSO" : "") + (gro ? ", GRO" : "") + ")";
    }

    @Override
    public long[] counters() {
        return new long[] {syscallsReceive, syscallsSend, datagramsIn, gsoSends, groBuffers, errors};
    }

    @Override
    public boolean gro() {
        return gro;
    }

    @Override
    public String toString() {
        return "LinuxBatchedPort[" + localAddress + (closing.get() ? ", closed" : "") + "]";
    }

    // ------------------------------------------------------------------ addresses

    /**
     * Senders' addresses decoded from {@code sockaddr}s without allocating for a known sender: a two-way
     * set-associative cache of the {@link InetSocketAddress} made for each (the peer table's keys are
     * these very objects, so a hot peer costs no allocation and an identity-fast lookup).
     */
    static final class AddressCache {
        private static final int SIZE = 8192;
        private final long[] hi = new long[SIZE];
        private final long[] lo = new long[SIZE];
        private final long[] tag = new long[SIZE];
        private final InetSocketAddress[] values = new InetSocketAddress[SIZE];

        @Nullable InetSocketAddress decode(MemorySegment names, long off) {
            int fam = names.get(JAVA_SHORT, off) & 0xffff;
            int port = Short.toUnsignedInt(Short.reverseBytes(names.get(JAVA_SHORT, off + 2)));
            long h;
            long l;
            int scope = 0;
            boolean v4;
            if (fam == Libc.AF_INET) {
                h = 0;
                l = names.get(JAVA_INT, off + 4) & 0xffff_ffffL;
                v4 = true;
            } else if (fam == Libc.AF_INET6) {
                h = names.get(JAVA_LONG, off + 8);
                l = names.get(JAVA_LONG, off + 16);
                scope = names.get(JAVA_INT, off + 24);
                // ::ffff:a.b.c.d (an IPv4 sender on a dual-stack socket) is that IPv4 address, as the JDK reports it
                v4 = h == 0 && (l & 0xffff_ffffL) == 0xffff_0000L;
                if (v4) {
                    h = 0;
                    l = (l >>> 32) & 0xffff_ffffL;
                    scope = 0;
                }
            } else {
                return null;
            }
            long t = ((long) port << 32) | (scope & 0xffff_ffffL) ^ (v4 ? 0 : 1L << 48);
            int slot = (int) (mix(h * 31 + l, t) & (SIZE - 1)) & ~1;
            for (int i = slot; i < slot + 2; i++) {
                InetSocketAddress a = values[i];
                if (a != null && hi[i] == h && lo[i] == l && tag[i] == t) {
                    return a;
                }
            }
            InetSocketAddress a = make(v4, h, l, scope, port);
            // the newer entry first, the older one second: the pair keeps the two most recent
            hi[slot + 1] = hi[slot];
            lo[slot + 1] = lo[slot];
            tag[slot + 1] = tag[slot];
            values[slot + 1] = values[slot];
            hi[slot] = h;
            lo[slot] = l;
            tag[slot] = t;
            values[slot] = a;
            return a;
        }

        private static long mix(long a, long b) {
            long x = a ^ (b * 0x9E3779B97F4A7C15L);
            x ^= x >>> 31;
            x *= 0xBF58476D1CE4E5B9L;
            return x ^ (x >>> 29);
        }

        private static InetSocketAddress make(boolean v4, long h, long l, int scope, int port) {
            try {
                if (v4) {
                    // l holds the address as it lay in memory (network order read little-endian)
                    byte[] b = {(byte) l, (byte) (l >>> 8), (byte) (l >>> 16), (byte) (l >>> 24)};
                    return new InetSocketAddress(java.net.InetAddress.getByAddress(b), port);
                }
                byte[] b = new byte[16];
                for (int i = 0; i < 8; i++) {
                    b[i] = (byte) (h >>> (8 * i));
                    b[8 + i] = (byte) (l >>> (8 * i));
                }
                return new InetSocketAddress(scope != 0 ? Inet6Address.getByAddress(null, b, scope)
                        : java.net.InetAddress.getByAddress(b), port);
            } catch (java.net.UnknownHostException e) {
                throw new IllegalStateException(e); // lengths are right by construction
            }
        }
    }

    /**
     * Encodes destinations into {@code sockaddr}s, caching the encoding per {@link InetSocketAddress}
     * object (a peer sends to its one address object): no allocation for a known destination.
     */
    static final class AddressEncoder {
        private static final int SIZE = 1024;
        private final int family;
        private final InetSocketAddress[] keys = new InetSocketAddress[SIZE];
        private final int[] lengths = new int[SIZE];
        private final MemorySegment encoded = Arena.ofAuto().allocate((long) SIZE * ADDR_BYTES, 8);

        AddressEncoder(int family) {
            this.family = family;
        }

        /** Writes {@code to} at {@code dst[off]}; its length, or -1 when this socket's family cannot reach it. */
        int encode(InetSocketAddress to, MemorySegment dst, long off) {
            int i = System.identityHashCode(to) & (SIZE - 1);
            if (keys[i] != to) {
                int len = encodeSlow(to, encoded, (long) i * ADDR_BYTES);
                if (len < 0) {
                    return -1;
                }
                keys[i] = to;
                lengths[i] = len;
            }
            MemorySegment.copy(encoded, (long) i * ADDR_BYTES, dst, off, ADDR_BYTES);
            return lengths[i];
        }

        private int encodeSlow(InetSocketAddress to, MemorySegment dst, long off) {
            java.net.InetAddress a = to.getAddress();
            if (a == null) {
                return -1; // unresolved
            }
            byte[] b = a.getAddress();
            dst.asSlice(off, ADDR_BYTES).fill((byte) 0);
            short port = Short.reverseBytes((short) to.getPort());
            if (family == Libc.AF_INET) {
                if (b.length != 4) {
                    return -1;
                }
                dst.set(JAVA_SHORT, off, (short) Libc.AF_INET);
                dst.set(JAVA_SHORT, off + 2, port);
                MemorySegment.copy(b, 0, dst, java.lang.foreign.ValueLayout.JAVA_BYTE, off + 4, 4);
                return 16;
            }
            dst.set(JAVA_SHORT, off, (short) Libc.AF_INET6);
            dst.set(JAVA_SHORT, off + 2, port);
            if (b.length == 4) {
                dst.set(java.lang.foreign.ValueLayout.JAVA_BYTE, off + 18, (byte) 0xff);
                dst.set(java.lang.foreign.ValueLayout.JAVA_BYTE, off + 19, (byte) 0xff);
                MemorySegment.copy(b, 0, dst, java.lang.foreign.ValueLayout.JAVA_BYTE, off + 20, 4);
            } else {
                MemorySegment.copy(b, 0, dst, java.lang.foreign.ValueLayout.JAVA_BYTE, off + 8, 16);
                if (a instanceof Inet6Address v6) {
                    dst.set(JAVA_INT, off + 24, v6.getScopeId());
                }
            }
            return 28;
        }
    }
}
