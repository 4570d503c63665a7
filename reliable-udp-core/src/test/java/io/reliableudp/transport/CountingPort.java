package io.reliableudp.transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Test fixture: a {@link DatagramPort} that passes everything to the port it wraps and counts the
 * wake-ups that reach it (the selector's) and the waits that only looked at it (a zero timeout:
 * {@code selectNow}), for the tests of the I/O loop's wake-up economy.
 */
final class CountingPort extends ForwardingPort {
    /** {@link #wakeup} calls that reached the port. */
    final AtomicLong wakeups = new AtomicLong();
    /** Waits that only looked at the port (a zero timeout). */
    final AtomicLong looks = new AtomicLong();
    /** The shortest wait with a timeout (nanoseconds), Long.MAX_VALUE before the first. */
    final AtomicLong shortestTimedWait = new AtomicLong(Long.MAX_VALUE);

    CountingPort(DatagramPort port) {
        super(port);
    }



    @Override
    public void awaitReadable(long timeoutNanos) throws IOException {
        if (timeoutNanos <= 0) {
            looks.incrementAndGet();
        } else {
            shortestTimedWait.accumulateAndGet(timeoutNanos, Math::min);
        }
        port.awaitReadable(timeoutNanos);
    }

    @Override
    public void wakeup() {
        wakeups.incrementAndGet();
        port.wakeup();
    }



}
