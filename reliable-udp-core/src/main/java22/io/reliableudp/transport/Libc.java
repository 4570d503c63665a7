package io.reliableudp.transport;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The C library calls {@link LinuxBatchedPort} makes, as downcall handles of the FFM linker (Linux,
 * 64-bit: the struct offsets used by the port are those of x86-64 and AArch64, which agree), and the
 * constants they take. {@link #get()} fails (and the node falls back to {@link UdpDatagramPort}) where
 * the platform is not Linux, a symbol is missing or native access is denied
 * ({@code --illegal-native-access=deny} without {@code --enable-native-access} for this module).
 *
 * <p>Every call that can fail captures {@code errno} into a segment of the caller's own
 * ({@link #errnoSegment}), so threads never share one.
 */
final class Libc {

    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOCK_DGRAM = 2;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int SO_REUSEPORT = 15;
    static final int IPPROTO_IP = 0;
    static final int IPPROTO_IPV6 = 41;
    static final int IPV6_V6ONLY = 26;
    static final int IP_TOS = 1;
    static final int IPV6_TCLASS = 67;
    static final int SOL_UDP = 17;
    static final int UDP_SEGMENT = 103;
    static final int UDP_GRO = 104;
    static final int MSG_DONTWAIT = 0x40;
    static final int POLLIN = 1;
    static final int EFD_NONBLOCK = 0x800;
    static final int EFD_CLOEXEC = 0x80000;
    static final int EINTR = 4;
    static final int EIO = 5;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int EINVAL = 22;
    static final int EMSGSIZE = 90;
    static final int EAFNOSUPPORT = 97;
    static final int ENOBUFS = 105;
    static final int ECONNREFUSED = 111;
    static final int EHOSTUNREACH = 113;
    static final int ENETUNREACH = 101;

    /** Bytes of one {@code sockaddr} slot: a {@code sockaddr_in6} (28), rounded to 32. */
    static final int ADDR_BYTES = 32;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final Linker.Option ERRNO = Linker.Option.captureCallState("errno");
    private static final MemoryLayout STATE = Linker.Option.captureStateLayout();
    private static final long ERRNO_OFFSET = STATE.byteOffset(MemoryLayout.PathElement.groupElement("errno"));

    private static volatile Libc instance;
    /** Whether the kernel takes UDP_SEGMENT (GSO); probed once with the first port. */
    static boolean GSO_WORKS;

    private static final MethodHandle SOCKET;
    private static final MethodHandle SETSOCKOPT;
    private static final MethodHandle GETSOCKOPT;
    private static final MethodHandle BIND;
    private static final MethodHandle GETSOCKNAME;
    private static final MethodHandle RECVMMSG;
    private static final MethodHandle SENDMMSG;
    private static final MethodHandle SENDTO;
    private static final MethodHandle POLL;
    private static final MethodHandle EVENTFD;
    private static final MethodHandle READ;
    private static final MethodHandle WRITE;
    private static final MethodHandle CLOSE;

    static {
        // static final handles: the JIT inlines a constant handle, so that a call allocates nothing
        String os = System.getProperty("os.name", "");
        String arch = System.getProperty("os.arch", "");
        if (!os.toLowerCase(java.util.Locale.ROOT).startsWith("linux")
                || !(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))) {
            throw new UnsupportedOperationException("the batched port needs Linux on x86-64 or AArch64, not "
                    + os + " on " + arch);
        }
        SymbolLookup c = LINKER.defaultLookup();
        SOCKET = handle(c, "socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), true);
        SETSOCKOPT = handle(c, "setsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), true);
        GETSOCKOPT = handle(c, "getsockopt", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), true);
        BIND = handle(c, "bind", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), true);
        GETSOCKNAME = handle(c, "getsockname", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), true);
        RECVMMSG = handle(c, "recvmmsg", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS), true);
        SENDMMSG = handle(c, "sendmmsg", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), true);
        SENDTO = handle(c, "sendto", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT), true);
        POLL = handle(c, "poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), true);
        EVENTFD = handle(c, "eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), true);
        READ = handle(c, "read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), false);
        WRITE = handle(c, "write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG), false);
        CLOSE = handle(c, "close", FunctionDescriptor.of(JAVA_INT, JAVA_INT), false);
    }

    private static MethodHandle handle(SymbolLookup lookup, String name, FunctionDescriptor d, boolean errno) {
        MemorySegment symbol = lookup.find(name).orElseThrow(() -> new UnsupportedOperationException("no " + name + " in the C library"));
        return errno ? LINKER.downcallHandle(symbol, d, ERRNO) : LINKER.downcallHandle(symbol, d);
    }

    /**
     * The bindings, made once (the class's initialization). Throws where they cannot be: not Linux, not
     * 64-bit, a symbol missing ({@link UnsupportedOperationException}), or native access denied
     * ({@link IllegalCallerException}), each wrapped in an {@link ExceptionInInitializerError} (later
     * tries: {@link NoClassDefFoundError}).
     */
    static Libc get() {
        Libc l = instance;
        if (l == null) {
            synchronized (Libc.class) {
                l = instance;
                if (l == null) {
                    l = new Libc();
                    GSO_WORKS = l.probeGso();
                    instance = l;
                }
            }
        }
        return l;
    }

    private Libc() {
    }

    private boolean probeGso() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = errnoSegment(arena);
            int fd = socket(errno, AF_INET);
            if (fd < 0) {
                return false;
            }
            try {
                MemorySegment v = arena.allocate(JAVA_INT);
                MemorySegment len = arena.allocate(JAVA_INT);
                len.set(JAVA_INT, 0, 4);
                return (int) GETSOCKOPT.invokeExact(errno, fd, SOL_UDP, UDP_SEGMENT, v, len) == 0;
            } catch (Throwable t) {
                return false;
            } finally {
                close(fd);
            }
        }
    }

    MemorySegment errnoSegment(Arena arena) {
        return arena.allocate(STATE);
    }

    int errno(MemorySegment state) {
        return state.get(JAVA_INT, ERRNO_OFFSET);
    }

    IOException error(String call, MemorySegment state) {
        int e = errno(state);
        return new IOException(call + " failed: " + describe(e) + " (errno " + e + ")");
    }

    static String describe(int errno) {
        return switch (errno) {
            case EAGAIN -> "resource temporarily unavailable (buffer full)";
            case EINVAL -> "invalid argument";
            case EMSGSIZE -> "message too long";
            case ECONNREFUSED -> "connection refused";
            case ENOBUFS -> "no buffer space";
            case EHOSTUNREACH -> "no route to host";
            case ENETUNREACH -> "network unreachable";
            case EAFNOSUPPORT -> "address family not supported by the socket";
            case EBADF -> "bad file descriptor";
            case EIO -> "I/O error";
            default -> "error";
        };
    }

    // ------------------------------------------------------------------ calls

    int socket(MemorySegment errno, int family) {
        try {
            return (int) SOCKET.invokeExact(errno, family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void setInt(MemorySegment errno, int fd, int level, int option, int value, String name) throws IOException {
        if (!trySetInt(errno, fd, level, option, value)) {
            throw error("setsockopt " + name, errno);
        }
    }

    boolean trySetInt(MemorySegment errno, int fd, int level, int option, int value) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment v = arena.allocate(JAVA_INT);
            v.set(JAVA_INT, 0, value);
            return (int) SETSOCKOPT.invokeExact(errno, fd, level, option, v, 4) == 0;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** An int socket option, -1 when it cannot be read. */
    int getInt(MemorySegment errno, int fd, int level, int option) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment v = arena.allocate(JAVA_INT);
            MemorySegment len = arena.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, 4);
            return (int) GETSOCKOPT.invokeExact(errno, fd, level, option, v, len) == 0 ? v.get(JAVA_INT, 0) : -1;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Binds {@code fd} to the {@code sockaddr} {@code sa} of {@code len} bytes ({@code address}: for messages). */
    void bind(MemorySegment errno, int fd, MemorySegment sa, int len, InetSocketAddress address) throws IOException {
        int r;
        try {
            r = (int) BIND.invokeExact(errno, fd, sa, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (r != 0) {
            IOException e = error("bind " + address, errno);
            throw errno(errno) == 98 ? new java.net.BindException(e.getMessage()) : e;
        }
    }

    InetSocketAddress localAddress(int fd, Arena arena) throws IOException {
        MemorySegment sa = arena.allocate(ADDR_BYTES, 8);
        MemorySegment len = arena.allocate(JAVA_INT);
        len.set(JAVA_INT, 0, ADDR_BYTES);
        MemorySegment errno = errnoSegment(arena);
        int r;
        try {
            r = (int) GETSOCKNAME.invokeExact(errno, fd, sa, len);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (r != 0) {
            throw error("getsockname", errno);
        }
        int port = Short.toUnsignedInt(Short.reverseBytes(sa.get(JAVA_SHORT, 2)));
        byte[] b;
        if (sa.get(JAVA_SHORT, 0) == AF_INET) {
            b = sa.asSlice(4, 4).toArray(JAVA_BYTE);
        } else {
            b = sa.asSlice(8, 16).toArray(JAVA_BYTE);
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(b), port);
        } catch (UnknownHostException e) {
            throw new IOException(e);
        }
    }

    int eventFd(MemorySegment errno) throws IOException {
        int r;
        try {
            r = (int) EVENTFD.invokeExact(errno, 0, EFD_NONBLOCK | EFD_CLOEXEC);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (r < 0) {
            throw error("eventfd", errno);
        }
        return r;
    }

    int recvmmsg(MemorySegment errno, int fd, MemorySegment msgs, int count) {
        try {
            return (int) RECVMMSG.invokeExact(errno, fd, msgs, count, MSG_DONTWAIT, MemorySegment.NULL);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int sendmmsg(MemorySegment errno, int fd, MemorySegment msgs, int count) {
        try {
            return (int) SENDMMSG.invokeExact(errno, fd, msgs, count, MSG_DONTWAIT);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long sendto(MemorySegment errno, int fd, MemorySegment data, int length, MemorySegment name, int nameLength) {
        try {
            return (long) SENDTO.invokeExact(errno, fd, data, (long) length, MSG_DONTWAIT, name, nameLength);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    int poll(MemorySegment errno, MemorySegment fds, int count, int timeoutMillis) {
        try {
            return (int) POLL.invokeExact(errno, fds, (long) count, timeoutMillis);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long read(int fd, MemorySegment into, int length) {
        try {
            return (long) READ.invokeExact(fd, into, (long) length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    long write(int fd, MemorySegment from, int length) {
        try {
            return (long) WRITE.invokeExact(fd, from, (long) length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    void close(int fd) {
        try {
            int ignored = (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
