package io.reliableudp.transport;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;

/**
 * Opens a node's port as {@link NodeConfig#batchedIo()} asks: the batched port where it may and can be
 * used, else {@link UdpDatagramPort}. The batched port's classes are compiled for Java 22 (the FFM API
 * is final there) into the JAR's {@code META-INF/versions/22}; this class, compiled for Java 21, finds
 * them by name, so that on Java 21 (or where the linker refuses: not Linux, native access denied) the
 * node runs on the plain port.
 */
final class BatchedPorts {

    private static final System.Logger LOG = System.getLogger(BatchedPorts.class.getName());

    /** The batched port's class (in META-INF/versions/22). */
    static final String IMPLEMENTATION = "io.reliableudp.transport.LinuxBatchedPort";

    /** The class looked up (tests name a missing one to see the fallback). */
    static volatile String implementation = IMPLEMENTATION;

    /** Why the batched port cannot be used in this JVM, once known (null: not tried or it works). */
    private static volatile @Nullable String unavailable;
    private static volatile @Nullable MethodHandle open;

    private BatchedPorts() {
    }

    /** The node's first port, of the kind its configuration asks for. */
    static DatagramPort open(NodeConfig config) throws IOException {
        BatchedIo mode = config.batchedIo();
        if (mode == BatchedIo.OFF) {
            return UdpDatagramPort.open(config);
        }
        if (mode == BatchedIo.AUTO && (config.receiveThreadMode() == ReceiveThreadMode.VIRTUAL
                || config.dedicatedSockets() > 0 || !nativeAccessGranted())) {
            // a wait in native code would hold a carrier; no dedicated sockets; and AUTO never makes the
            // JVM print its native-access warning: the application grants native access, or gets the plain port
            return UdpDatagramPort.open(config);
        }
        boolean share = config.ioThreads() > 1 && UdpDatagramPort.reusePortWorks();
        DatagramPort port = openBatched(config.bindAddress(), config.socketReceiveBufferSize(),
                config.socketSendBufferSize(), share, config.message().maxDatagramBudget(), true, config.trafficClass().tos());
        if (port != null) {
            if (config.dedicatedSockets() > 0) {
                LOG.log(Level.WARNING, "batchedIo=ON: the batched port has no dedicated sockets; dedicatedSockets="
                        + config.dedicatedSockets() + " is ignored and every peer shares the node's socket");
            }
            return port;
        }
        if (mode == BatchedIo.ON) {
            LOG.log(Level.WARNING, "batchedIo=ON but the batched port is not available (" + unavailable
                    + "); the node runs on the plain port");
        }
        return UdpDatagramPort.open(config);
    }

    /**
     * Whether the JVM was told to let this library call native code ({@code --enable-native-access} for
     * its module or ALL-UNNAMED, or the executable JAR's {@code Enable-Native-Access} manifest entry), so
     * that a native call prints no warning. False on Java 21 (no such check, and no batched port).
     */
    static boolean nativeAccessGranted() {
        Boolean g = granted;
        if (g == null) {
            try {
                g = (Boolean) Module.class.getMethod("isNativeAccessEnabled").invoke(BatchedPorts.class.getModule());
            } catch (ReflectiveOperationException | RuntimeException e) {
                g = false;
            }
            granted = g;
        }
        return g;
    }

    private static volatile @Nullable Boolean granted;

    /**
     * A batched port, or null when it is not available in this JVM (the reason: {@link #unavailable()}).
     *
     * @throws IOException when the socket cannot be opened or bound (as the plain port would)
     */
    static @Nullable DatagramPort openBatched(InetSocketAddress bind, int receiveBufferBytes, int sendBufferBytes,
                                              boolean reusePort, int maxDatagram, boolean gro) throws IOException {
        return openBatched(bind, receiveBufferBytes, sendBufferBytes, reusePort, maxDatagram, gro, 0);
    }

    /** As above, the socket's sends marked with the TOS byte {@code tos} (0: as the OS has it). */
    static @Nullable DatagramPort openBatched(InetSocketAddress bind, int receiveBufferBytes, int sendBufferBytes,
                                              boolean reusePort, int maxDatagram, boolean gro, int tos) throws IOException {
        MethodHandle h = handle();
        if (h == null) {
            return null;
        }
        try {
            return (DatagramPort) h.invoke(bind, receiveBufferBytes, sendBufferBytes, reusePort, maxDatagram, gro, tos);
        } catch (IOException e) {
            throw e;
        } catch (UnsupportedOperationException | IllegalCallerException | LinkageError e) {
            // not Linux, a symbol missing, native access denied (--illegal-native-access=deny)
            unavailable = e.toString();
            open = null;
            LOG.log(Level.DEBUG, () -> "the batched port is not available: " + e);
            return null;
        } catch (Throwable e) {
            if (e instanceof Error err) {
                throw err;
            }
            throw new IOException("could not open the batched port on " + bind + ": " + e, e);
        }
    }

    /** Why the batched port is not available in this JVM, or null (available, or not tried yet). */
    static @Nullable String unavailable() {
        return unavailable;
    }

    private static @Nullable MethodHandle handle() {
        if (unavailable != null) {
            return null;
        }
        MethodHandle h = open;
        if (h != null) {
            return h;
        }
        if (Runtime.version().feature() < 22) {
            unavailable = "needs Java 22 or later, this is " + Runtime.version();
            return null;
        }
        try {
            Class<?> c = Class.forName(implementation, true, BatchedPorts.class.getClassLoader());
            h = MethodHandles.lookup().findStatic(c, "open", MethodType.methodType(c, InetSocketAddress.class,
                    int.class, int.class, boolean.class, int.class, boolean.class, int.class));
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            unavailable = "its classes are not on the class path (" + e + ")";
            return null;
        }
        open = h;
        return h;
    }

    /** Forgets what the last lookup found (tests that change {@link #implementation}). */
    static void reset() {
        unavailable = null;
        open = null;
    }
}
