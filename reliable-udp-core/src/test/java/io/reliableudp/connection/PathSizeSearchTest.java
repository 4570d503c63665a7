package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The size search of a connection off the host (RFC 8899 datagram PLPMTUD, {@link SizeProbe}), on a
 * fake clock against a simulated path that carries datagrams up to a set size and silently loses
 * larger ones: the Ethernet size first, then the largest, then a binary search that ends within
 * {@value SizeProbe#GRANULARITY} bytes below the path's size, a size failing only after
 * {@value SizeProbe#TRIES} unanswered probes; a black hole falls back to the base at once and the lost
 * size is probed first; the raise timer searches upward again; a restart on a new path starts over.
 */
class PathSizeSearchTest {

    private static final int BASE = 1200;
    private static final int ETHERNET = 1472;

    /** A SizeProbe sending through a recorder, and a path that answers probes up to {@code pathSize}. */
    private static final class Path {
        final ConnectionTestSupport.Recorder r = new ConnectionTestSupport.Recorder(new ArrayList<>());
        final FrameSender out = new FrameSender(false, new FrameCodec(false, 1L, BASE), r, BASE + 100, 0);
        final SizeProbe sizes;
        int pathSize;
        double now;
        final List<Integer> probed = new ArrayList<>();

        Path(int maxBudget, int pathSize) {
            this.sizes = new SizeProbe(BASE, maxBudget);
            this.pathSize = pathSize;
        }

        /** Whether the session asks for larger packets (a stream whose packets fill up). */
        boolean asks = true;

        /**
         * Runs the connection's part until {@code until}: the session's ask, each due probe, and the
         * peer's answer when the path carries it.
         */
        void run(double until) {
            if (asks && sizes.wanted()) {
                probe();
            }
            while (true) {
                double due = Math.min(sizes.next(), sizes.raiseAt());
                if (due > until) {
                    now = until;
                    return;
                }
                now = Math.max(now, due);
                if (now >= sizes.raiseAt()) {
                    sizes.raise(now);
                    continue;
                }
                probe();
            }
        }

        private void probe() {
            int before = r.sent.size();
            sizes.send(out, now);
            if (r.sent.size() > before) {
                int size = r.sent.getLast().length;
                probed.add(size);
                if (size <= pathSize) {
                    now += 0.001; // one millisecond round trip
                    sizes.answered(size, now);
                }
            }
        }
    }

    @Test
    void anEthernetPathIsFoundWithOneProbeAndNoSearchBeyondTheInterface() {
        Path p = new Path(8952, 1472);
        p.sizes.discover(ETHERNET, ETHERNET, true);
        assertThat(p.sizes.phase()).isEqualTo(SizeProbe.Phase.BASE);
        p.run(10);
        assertThat(p.probed).containsExactly(ETHERNET);
        assertThat(p.sizes.budget()).isEqualTo(ETHERNET);
        assertThat(p.sizes.phase()).isEqualTo(SizeProbe.Phase.SEARCH_COMPLETE);
        assertThat(p.sizes.raiseAt()).as("at the largest: nothing to raise").isEqualTo(Double.POSITIVE_INFINITY);
    }

    @Test
    void aJumboPathGrowsToTheInterfaceSizeInTwoProbes() {
        Path p = new Path(8952, 8972);
        p.sizes.discover(8952, ETHERNET, true);
        p.run(10);
        assertThat(p.probed).containsExactly(ETHERNET, 8952);
        assertThat(p.sizes.budget()).isEqualTo(8952);
    }

    @Test
    void aSmallerPathIsFoundByABinarySearchWithinTheGranularityBelowItsSize() {
        Path p = new Path(8952, 1372); // a 1,400-byte link on the way, an Ethernet interface here
        p.sizes.discover(ETHERNET, ETHERNET, true);
        p.run(60);
        assertThat(p.sizes.phase()).isEqualTo(SizeProbe.Phase.SEARCH_COMPLETE);
        assertThat(p.sizes.budget()).isBetween(1372 - SizeProbe.GRANULARITY, 1372);
        // every size that failed was tried exactly TRIES times, every one that passed once
        for (int size : p.probed.stream().distinct().toList()) {
            long n = p.probed.stream().filter(s -> s == size).count();
            assertThat(n).as("probes of " + size).isEqualTo(size <= 1372 ? 1 : SizeProbe.TRIES);
        }
        assertThat(p.probed.getFirst()).isEqualTo(ETHERNET);
        assertThat(p.probed.stream().distinct().count()).as("a few steps").isLessThanOrEqualTo(7);
        // the time the search took, on the fake clock: a few seconds
        assertThat(p.sizes.raiseAt() - SizeProbe.RAISE_INTERVAL).isLessThan(5.0);
    }

    @Test
    void aPathThatCarriesNothingLargerStaysAtTheBaseAfterItsProbes() {
        Path p = new Path(8952, BASE);
        p.sizes.discover(ETHERNET, ETHERNET, true);
        p.run(60);
        assertThat(p.sizes.budget()).isEqualTo(BASE);
        assertThat(p.sizes.phase()).isEqualTo(SizeProbe.Phase.SEARCH_COMPLETE);
        assertThat(p.probed).allMatch(s -> s > BASE);
    }

    @Test
    void aBlackHoleFallsBackToTheBaseAtOnceThenFindsTheSmallerPath() {
        Path p = new Path(8952, 1472);
        p.sizes.discover(ETHERNET, ETHERNET, true);
        p.run(10);
        assertThat(p.sizes.budget()).isEqualTo(ETHERNET);
        assertThat(p.sizes.watched()).isTrue();
        p.pathSize = 1252; // a 1,280-byte link now, larger datagrams vanish
        p.probed.clear();
        assertThat(p.sizes.blackHole(p.now)).isEqualTo(BASE);
        assertThat(p.sizes.budget()).as("at once").isEqualTo(BASE);
        assertThat(p.sizes.next()).as("the lost size is probed at once").isEqualTo(p.now);
        p.run(p.now + 60);
        assertThat(p.probed.getFirst()).isEqualTo(ETHERNET);
        assertThat(p.sizes.budget()).isBetween(1252 - SizeProbe.GRANULARITY, 1252);
        assertThat(p.sizes.blackHoles()).isEqualTo(1);
        // a completed search below the largest is raised again after the raise interval
        assertThat(p.sizes.raiseAt()).isFinite();
        p.pathSize = 1472;
        p.probed.clear();
        p.run(p.sizes.raiseAt() + 60);
        assertThat(p.sizes.budget()).isEqualTo(ETHERNET);
        assertThat(p.probed).isNotEmpty();
    }

    @Test
    void aLossThatWasNotThePathsComesBackWithOneProbe() {
        Path p = new Path(8952, 1472);
        p.sizes.discover(ETHERNET, ETHERNET, true);
        p.run(10);
        p.probed.clear();
        assertThat(p.sizes.blackHole(p.now)).isEqualTo(BASE);
        p.run(p.now + 10);
        assertThat(p.probed).containsExactly(ETHERNET);
        assertThat(p.sizes.budget()).isEqualTo(ETHERNET);
    }

    @Test
    void aKnownPathIsNeverWatchedAndNeverSearchedBelowItsSize() {
        Path p = new Path(8952, 4000); // a peer that accepts no more than 4,000 bytes
        p.sizes.discover(8952);
        p.run(10);
        assertThat(p.probed).containsExactly(8952, 8952, 8952);
        assertThat(p.sizes.budget()).isEqualTo(BASE);
        assertThat(p.sizes.raiseAt()).isEqualTo(Double.POSITIVE_INFINITY);
        Path q = new Path(8952, 8952);
        q.sizes.discover(8952);
        q.run(10);
        assertThat(q.sizes.budget()).isEqualTo(8952);
        assertThat(q.sizes.watched()).isFalse();
        assertThat(q.sizes.blackHole(q.now)).as("not watched").isZero();
        assertThat(q.sizes.budget()).isEqualTo(8952);
    }

    @Test
    void aRestartOnANewPathFallsBackAndSearchesAgainAtOnceWhenTheSessionHadAsked() {
        Path p = new Path(8952, 8972);
        p.sizes.discover(8952, ETHERNET, true);
        p.run(10);
        assertThat(p.sizes.budget()).isEqualTo(8952);
        p.pathSize = 1472;
        p.probed.clear();
        assertThat(p.sizes.restart(ETHERNET, ETHERNET, true, p.now)).isEqualTo(BASE);
        assertThat(p.sizes.budget()).isEqualTo(BASE);
        p.run(p.now + 10);
        assertThat(p.probed).containsExactly(ETHERNET);
        assertThat(p.sizes.budget()).isEqualTo(ETHERNET);

        Path idle = new Path(8952, 1472);
        idle.asks = false;
        idle.sizes.discover(ETHERNET, ETHERNET, true);
        assertThat(idle.sizes.restart(ETHERNET, ETHERNET, true, 0)).as("at the base already").isZero();
        idle.run(10);
        assertThat(idle.probed).as("the session never asked: no probe").isEmpty();
        assertThat(idle.sizes.wanted()).isTrue();
    }
}
