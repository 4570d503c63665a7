package io.reliableudp.transport;

import io.reliableudp.connection.DropReason;
import io.reliableudp.connection.HandshakeFailure;
import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters of one node (datagrams and bytes each way, drops by reason, handshake failures by
 * reason, connections opened, listener and send errors), updated from any thread without locks, and
 * their {@link NodeStats} snapshot.
 */
final class NodeCounters {

    private static final System.Logger LOG = System.getLogger(NodeCounters.class.getName());

    final LongAdder datagramsSent = new LongAdder();
    final LongAdder datagramsReceived = new LongAdder();
    final LongAdder bytesSent = new LongAdder();
    final LongAdder bytesReceived = new LongAdder();
    final LongAdder connectionsOpened = new LongAdder();
    final LongAdder listenerErrors = new LongAdder();
    final LongAdder sendErrors = new LongAdder();
    private final AtomicLongArray drops = new AtomicLongArray(DropReason.values().length);
    private final AtomicLongArray handshakeFailures = new AtomicLongArray(HandshakeFailure.values().length);

    void received(int length) {
        datagramsReceived.increment();
        bytesReceived.add(length);
    }

    void sent(int length) {
        datagramsSent.increment();
        bytesSent.add(length);
    }

    void drop(DropReason reason) {
        drops.incrementAndGet(reason.ordinal());
        LOG.log(Level.TRACE, () -> "dropped a datagram: " + reason.key());
    }

    void failure(HandshakeFailure failure) {
        handshakeFailures.incrementAndGet(failure.ordinal());
        LOG.log(Level.DEBUG, () -> "handshake failed: " + failure.key());
    }

    NodeStats snapshot(int peers) {
        Map<String, Long> dropped = new LinkedHashMap<>();
        for (DropReason r : DropReason.values()) {
            long v = drops.get(r.ordinal());
            if (v > 0) {
                dropped.put(r.key(), v);
            }
        }
        Map<String, Long> failures = new LinkedHashMap<>();
        for (HandshakeFailure f : HandshakeFailure.values()) {
            long v = handshakeFailures.get(f.ordinal());
            if (v > 0) {
                failures.put(f.key(), v);
            }
        }
        return new NodeStats(datagramsSent.sum(), datagramsReceived.sum(), bytesSent.sum(), bytesReceived.sum(),
                Map.copyOf(dropped), Map.copyOf(failures), peers, connectionsOpened.sum(), listenerErrors.sum());
    }
}
