package io.reliableudp.connection;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;

/**
 * The datagram size of one connection, and its discovery by SIZE probes: the connection starts at the
 * message layer's {@code datagramBudget}; when the transport knows the path carries larger datagrams
 * (a peer on this host, {@link #discover}) and the session asks for larger packets, a keepalive
 * padded to the larger size goes ({@link #send}), and when the peer answers that it received that
 * many bytes ({@link #answered}), the budget grows to it. The SIZE answer to a peer's probe goes from
 * here too ({@link #answer}).
 *
 * <p>Sends through the {@link FrameSender} it is given; the connection grows its datagram buffer and
 * tells its session when {@link #answered} says the budget grew. Time is in seconds. Not thread-safe.
 */
final class SizeProbe {

    /** Size probes a connection sends for one size before it gives the size up. */
    static final int TRIES = 3;

    /** Seconds between two tries of a size probe. */
    static final double INTERVAL = 0.2;

    private static final System.Logger LOG = System.getLogger(SizeProbe.class.getName());

    private final int maxBudget;
    /** The largest datagram the connection sends now. */
    private int budget;
    /** The datagram size to probe once the session asks for larger packets (0: none, or done). */
    private int target;
    /** Probes sent for {@link #target} so far; after {@link #TRIES} unanswered, it is given up. */
    private int tries;
    /** When the next try is due (+inf: none outstanding). */
    private double next = Double.POSITIVE_INFINITY;
    private long sent;
    private long answered;

    /** Starts at {@code budget} bytes; never probes beyond {@code maxBudget}. */
    SizeProbe(int budget, int maxBudget) {
        this.budget = budget;
        this.maxBudget = maxBudget;
    }

    /**
     * Lets the datagrams grow up to {@code size} bytes once the session asks for larger packets.
     * Ignored when {@code size} is not above the current budget; capped at {@code maxBudget}.
     */
    void discover(int size) {
        int t = Math.min(size, maxBudget);
        target = t > budget ? t : 0;
    }

    /** The largest datagram the connection sends now (bytes). */
    int budget() {
        return budget;
    }

    /** Whether a size waits to be probed and no probe of it went yet: the session's first ask starts it. */
    boolean wanted() {
        return target > 0 && tries == 0;
    }

    /** When the next try (or the giving up after the last) is due; +inf when none is outstanding. */
    double next() {
        return next;
    }

    /**
     * One SIZE probe of the target's size at {@code now}, in a buffer of its own (the session's packets
     * stay where they are composed): the flags byte, then zeros to the size. Gives the size up instead,
     * after the last try's interval.
     */
    void send(FrameSender out, double now) {
        int size = target;
        if (size == 0 || tries >= TRIES) {
            if (size != 0) {
                LOG.log(Level.DEBUG, () -> "connection " + Integer.toHexString(out.salt()) + ": no answer to " + TRIES
                        + " size probes of " + size + " bytes; the datagram budget stays " + budget);
            }
            target = 0;
            next = Double.POSITIVE_INFINITY;
            return;
        }
        tries++;
        sent++;
        next = now + INTERVAL;
        ByteBuffer probe = FrameSender.buffer(out.encrypted(), size);
        probe.put(out.headroom(), (byte) Protocol.KEEPALIVE_SIZE_PROBE);
        out.frame(probe, Protocol.KEEPALIVE, out.headroom(), size - Protocol.frameOverhead(out.encrypted()));
    }

    /**
     * A SIZE answer: the peer received {@code size} bytes. When that is the size probed, the budget
     * grows to it and the new budget is returned; else (a late answer to a size given up, or a peer's
     * mistake) 0.
     */
    int answered(int size) {
        int t = target;
        if (t == 0 || size != t || tries == 0) {
            return 0;
        }
        target = 0;
        next = Double.POSITIVE_INFINITY;
        budget = t;
        return t;
    }

    /** The peer's SIZE probe arrived, {@code length} bytes long: the answer names that length. */
    void answer(FrameSender out, int length) {
        answered++;
        out.datagram().putInt(out.headroom() + 1, length); // big-endian, as every connection-layer field
        out.keepalive(Protocol.KEEPALIVE_SIZE_ANSWER, Protocol.KEEPALIVE_SIZE_ANSWER_BODY);
    }

    /** SIZE probes sent. */
    long sent() {
        return sent;
    }

    /** The peer's SIZE probes answered. */
    long answers() {
        return answered;
    }
}
