package io.reliableudp.transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Test support: a {@link DatagramPort} that passes every call to the port it wraps. The test ports
 * that drop, count or add datagrams extend it and override only what they change.
 */
abstract class ForwardingPort implements DatagramPort {

    /** The wrapped port. */
    protected final DatagramPort port;

    protected ForwardingPort(DatagramPort port) {
        this.port = port;
    }

    @Override
    public @Nullable InetSocketAddress receive(ByteBuffer into) throws IOException {
        return port.receive(into);
    }

    @Override
    public boolean send(ByteBuffer datagram, InetSocketAddress to) throws IOException {
        return port.send(datagram, to);
    }

    @Override
    public void awaitReadable(long timeoutNanos) throws IOException {
        port.awaitReadable(timeoutNanos);
    }

    @Override
    public void wakeup() {
        port.wakeup();
    }

    @Override
    public InetSocketAddress localAddress() {
        return port.localAddress();
    }

    @Override
    public boolean isOpen() {
        return port.isOpen();
    }

    @Override
    public void close() {
        port.close();
    }
}
