package io.reliableudp.transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Test fixture: a {@link DatagramPort} that drops the datagrams it is asked to send when a predicate
 * over their bytes says so (as a network would lose them: the send still reports success), and passes
 * everything else to the port it wraps. The predicate sees the datagram from its position, read only.
 */
final class DroppingPort extends ForwardingPort {
    private final Predicate<ByteBuffer> drop;
    /** Datagrams dropped. */
    final AtomicLong dropped = new AtomicLong();

    DroppingPort(DatagramPort port, Predicate<ByteBuffer> drop) {
        super(port);
        this.drop = drop;
    }

    /** The first byte of a datagram: a connection frame's type ({@code WireForTests.PAYLOAD}, ...). */
    static int type(ByteBuffer datagram) {
        return datagram.remaining() > 0 ? datagram.get(datagram.position()) : -1;
    }


    @Override
    public boolean send(ByteBuffer datagram, InetSocketAddress to) throws IOException {
        if (drop.test(datagram.asReadOnlyBuffer())) {
            dropped.incrementAndGet();
            datagram.position(datagram.limit());
            return true;
        }
        return port.send(datagram, to);
    }





}
