package io.reliableudp.transport;

import java.net.InetAddress;
import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * The handshake budget of one source, beside the node's global one ({@link Acceptor}): a token bucket
 * per source IP address (its port ignored, so one host cannot multiply its share with more ports), so
 * that one source cannot spend the whole global budget and lock every other client out.
 *
 * <p>Bounded memory, whatever the number of sources: {@value #SLOTS} buckets in two arrays, allocated
 * at the first handshake datagram (16 KiB; a node that is never asked to connect has none), and a
 * source's bucket is the one its address hashes to, with a key drawn per node, so that no one can
 * tell which addresses share a bucket. Two sources that share one share its budget: a client whose
 * address shares the bucket of a flooding source (one chance in {@value #SLOTS} per flooding source)
 * retries, as on any rate limit, and still has the global budget once the flood is spread over more
 * addresses than buckets. No allocation per datagram.
 *
 * <p>Sources on a loopback address are not limited per source: they are processes on this host, which
 * could use any other address as well, and many local clients (tests, benchmarks, sidecars) share
 * one; the global budget still bounds them. Not thread-safe: the acceptor serialises its calls.
 */
final class SourceBudget {

    /** Buckets, a power of two. */
    static final int SLOTS = 1024;

    /**
     * Handshake datagrams (requests and responses) one source may send per second, and its burst: a
     * tenth of the global budget ({@link Acceptor#HANDSHAKES_PER_SECOND}), so a single flooding source
     * leaves nine tenths to everyone else; 500 clients behind one address (a NAT) that reconnect at
     * once, a request and a response each, pass in one burst.
     */
    static final double HANDSHAKES_PER_SECOND = 1_000;
    /** The burst allowance of one source: one second of its rate. */
    static final double HANDSHAKE_BURST = 1_000;

    private final int key;
    private double rate = HANDSHAKES_PER_SECOND;
    private double burst = HANDSHAKE_BURST;
    private boolean limitLoopback;
    private double[] tokens = new double[0];
    private double[] tokensAt = new double[0];

    /** A budget whose hash key is drawn from {@code random}. */
    SourceBudget(RandomGenerator random) {
        this.key = random.nextInt();
    }

    /** Changes the per-source budget; {@code loopbackToo} limits loopback sources as well (tests). */
    void budget(double perSecond, double burstAllowance, boolean loopbackToo) {
        this.rate = perSecond;
        this.burst = burstAllowance;
        this.limitLoopback = loopbackToo;
    }

    /** Takes one token of {@code source}'s bucket at {@code now} (seconds); false when it is empty. */
    boolean take(InetAddress source, double now) {
        if (!limitLoopback && source.isLoopbackAddress()) {
            return true;
        }
        if (tokens.length == 0) {
            tokens = new double[SLOTS];
            tokensAt = new double[SLOTS];
            Arrays.fill(tokensAt, Double.NEGATIVE_INFINITY); // an unused bucket is full
        }
        int slot = slot(source);
        double last = tokensAt[slot];
        double t = last == Double.NEGATIVE_INFINITY ? burst : Math.min(burst, tokens[slot] + (now - last) * rate);
        tokensAt[slot] = now;
        if (t < 1) {
            tokens[slot] = t;
            return false;
        }
        tokens[slot] = t - 1;
        return true;
    }

    /** The bucket of {@code source}: its address hashed with this node's key. */
    int slot(InetAddress source) {
        int h = (source.hashCode() ^ key) * 0x9E3779B9;
        h ^= h >>> 15;
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        return h & (SLOTS - 1);
    }
}
