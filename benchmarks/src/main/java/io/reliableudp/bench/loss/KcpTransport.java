package io.reliableudp.bench.loss;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * KCP in the {@code loss} benchmark: an adapter to {@code io.reliableudp.bench.kcp.KcpLink} of the
 * {@code benchmarks-kcp} module (kcp-netty 1.5.2 in fast mode on Netty 4.1.68), which is only on the class path
 * of the child JVM that runs it; found by name, used through JDK types only.
 */
final class KcpTransport implements EventTransport {

    static final String LINK_CLASS = "io.reliableudp.bench.kcp.KcpLink";

    private final MethodHandle listen;
    private final MethodHandle connect;

    KcpTransport() throws ReflectiveOperationException {
        Class<?> link = Class.forName(LINK_CLASS);
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        listen = lookup.findStatic(link, "listen", MethodType.methodType(AutoCloseable.class, int.class, Consumer.class));
        connect = lookup.findStatic(link, "connect", MethodType.methodType(Consumer.class, String.class, int.class));
    }

    @Override
    public Receiving listen(int port, Consumer<byte[]> sink) throws Exception {
        AutoCloseable link = (AutoCloseable) call(listen, port, sink);
        return new Receiving() {
            @Override
            public int port() {
                return ((IntSupplier) link).getAsInt();
            }

            @Override
            public void close() throws Exception {
                link.close();
            }
        };
    }

    @Override
    @SuppressWarnings("unchecked")
    public Sending connect(String host, int port, Duration timeout) throws Exception {
        Consumer<byte[]> link = (Consumer<byte[]>) call(connect, host, port);
        return new Sending() {
            @Override
            public boolean send(byte[] event) {
                link.accept(event);
                return true;
            }

            @Override
            public void close() throws Exception {
                ((AutoCloseable) link).close();
            }
        };
    }

    private static Object call(MethodHandle method, Object... args) throws Exception {
        try {
            return method.invokeWithArguments(args);
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
