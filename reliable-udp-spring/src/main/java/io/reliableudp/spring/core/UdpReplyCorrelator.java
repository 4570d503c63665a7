package io.reliableudp.spring.core;

import io.reliableudp.spring.support.InboundUdpMessage;
import io.reliableudp.spring.support.Envelope;
import io.reliableudp.spring.support.EnvelopeCodec;
import io.reliableudp.spring.support.EnvelopeException;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Matches replies to the requests of one node: every request waiting for its reply is registered under
 * a correlation id, and a reply (an envelope with the reply flag, routed here by the
 * {@link UdpInboundDispatcher} and never to listeners) completes the request whose id it carries, when
 * it comes from the peer the request went to. Ids start at a random value per node, so a restarted
 * node does not take a reply meant for its previous run.
 *
 * <p>Runs on the receive thread: it only decodes the envelope and hands it on; the template converts
 * the reply on its own executor. A reply that matches nothing (late, after the timeout; or unknown), that
 * comes from another peer, or that is malformed is counted and logged at debug level, never passed on.
 */
public final class UdpReplyCorrelator implements InboundUdpMessageSubscriber {

    private static final Log logger = LogFactory.getLog(UdpReplyCorrelator.class);

    private final AtomicLong nextId = new AtomicLong(ThreadLocalRandom.current().nextLong());
    private final ConcurrentHashMap<Long, Pending> pending = new ConcurrentHashMap<>();
    private final LongAdder unmatched = new LongAdder();
    private final LongAdder foreign = new LongAdder();
    private final LongAdder malformed = new LongAdder();

    private record Pending(InetSocketAddress peer, BiConsumer<InboundUdpMessage, Envelope> onReply) {
    }

    /**
     * Registers a request.
     *
     * @param peer where the request goes (only a reply from there is taken)
     * @param onReply called once, on the receive thread, with the reply (it must hand work to an executor)
     * @return the correlation id to send with the request
     */
    public long register(InetSocketAddress peer, BiConsumer<InboundUdpMessage, Envelope> onReply) {
        Pending p = new Pending(Objects.requireNonNull(peer, "peer"), Objects.requireNonNull(onReply, "onReply"));
        while (true) {
            long id = nextId.getAndIncrement();
            if (pending.putIfAbsent(id, p) == null) {
                return id;
            }
        }
    }

    /**
     * Forgets a request (timed out, failed to send, or cancelled); a reply that comes later is unmatched.
     *
     * @param correlationId the id
     */
    public void cancel(long correlationId) {
        pending.remove(correlationId);
    }

    /** Requests waiting for their reply. */
    public int pendingCount() {
        return pending.size();
    }

    /** Replies that matched no waiting request (late or unknown). */
    public long unmatchedReplies() {
        return unmatched.sum();
    }

    /** Replies that carried a waiting id but came from another peer than the request went to. */
    public long foreignReplies() {
        return foreign.sum();
    }

    /** Replies whose envelope was malformed. */
    public long malformedReplies() {
        return malformed.sum();
    }

    @Override
    public boolean accepts(InboundUdpMessage message) {
        return true;
    }

    @Override
    public void onMessage(InboundUdpMessage message) {
        Envelope envelope;
        try {
            envelope = EnvelopeCodec.decode(message.payload());
        } catch (EnvelopeException e) {
            malformed.increment();
            logger.debug("malformed reply from " + message.address() + ": " + e.getMessage());
            return;
        }
        long id = envelope.correlationId();
        Pending p = pending.get(id);
        if (p == null) {
            unmatched.increment();
            logger.debug("a reply from " + message.address() + " matches no waiting request (late or unknown); dropped");
            return;
        }
        if (!p.peer().equals(message.address())) {
            foreign.increment();
            logger.debug("a reply from " + message.address() + " carries the id of a request to " + p.peer() + "; dropped");
            return;
        }
        if (pending.remove(id, p)) {
            p.onReply().accept(message, envelope);
        }
    }
}
