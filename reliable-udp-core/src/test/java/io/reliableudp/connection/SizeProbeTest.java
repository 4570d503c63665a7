package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * SIZE probes (spec 3.7): a probe padded to the size asked about is answered once with a SIZE answer
 * naming the length that arrived; the prober grows its datagram budget only on an answer naming the
 * size it probed, tries {@value SizeProbe#TRIES} times and then gives the size up (fake
 * clock, no sockets; the transport's view over real UDP is {@code DatagramBudgetTest}).
 */
class SizeProbeTest {

    private static final int SALT = 0x5a17;

    /** The sequence of the next frame forged here: each one new, as the peer's frames are. */
    private static final java.util.concurrent.atomic.AtomicLong SEQUENCE = new java.util.concurrent.atomic.AtomicLong();

    /** A plain frame of {@code length} bytes: KEEPALIVE, the salt, the flags, zeros after them. */
    private static byte[] keepalive(int length, int flags) {
        byte[] f = new byte[length];
        f[0] = Protocol.KEEPALIVE;
        f[1] = (byte) (SALT >>> 24);
        f[2] = (byte) (SALT >>> 16);
        f[3] = (byte) (SALT >>> 8);
        f[4] = (byte) SALT;
        ConnectionTestSupport.sequenced(f, SEQUENCE.incrementAndGet());
        f[Protocol.FRAME_HEADER_PLAIN] = (byte) flags;
        return f;
    }

    private static byte[] answer(int size) {
        byte[] f = keepalive(Protocol.FRAME_HEADER_PLAIN + Protocol.KEEPALIVE_SIZE_ANSWER_BODY, Protocol.KEEPALIVE_SIZE_ANSWER);
        int at = Protocol.FRAME_HEADER_PLAIN + 1;
        f[at] = (byte) (size >>> 24);
        f[at + 1] = (byte) (size >>> 16);
        f[at + 2] = (byte) (size >>> 8);
        f[at + 3] = (byte) size;
        return f;
    }

    private static int answeredSize(byte[] f) {
        int at = Protocol.FRAME_HEADER_PLAIN + 1;
        return (f[at] & 0xFF) << 24 | (f[at + 1] & 0xFF) << 16 | (f[at + 2] & 0xFF) << 8 | (f[at + 3] & 0xFF);
    }

    private static Connection server(ConnectionTestSupport.Recorder r) {
        ConnectionSettings s = ProbeTest.settings(null);
        byte[] cn = new byte[16];
        byte[] sn = new byte[16];
        Arrays.fill(sn, (byte) 7);
        return Connection.server(s, r, r, SALT, null, null, null, 0, 0.0);
    }

    @Test
    void aSizeProbeIsAnsweredOnceWithTheLengthThatArrived() {
        ConnectionTestSupport.Recorder r = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection c = server(r);
        int before = r.sent.size();
        c.receive(keepalive(3_000, Protocol.KEEPALIVE_SIZE_PROBE), 0, 3_000, 0.1);
        assertThat(r.sent).hasSize(before + 1);
        byte[] a = r.sent.getLast();
        assertThat(a).hasSize(Protocol.FRAME_HEADER_PLAIN + Protocol.KEEPALIVE_SIZE_ANSWER_BODY);
        assertThat(a[0]).isEqualTo(Protocol.KEEPALIVE);
        assertThat(a[Protocol.FRAME_HEADER_PLAIN]).isEqualTo((byte) Protocol.KEEPALIVE_SIZE_ANSWER);
        assertThat(answeredSize(a)).isEqualTo(3_000);
        // an answer is not answered, and changes nothing when nothing was probed
        ConnectionTestSupport.sequenced(a, SEQUENCE.incrementAndGet());
        c.receive(a, 0, a.length, 0.2);
        assertThat(r.sent).hasSize(before + 1);
        assertThat(c.datagramBudget()).isEqualTo(1200);
        assertThat(c.sizeProbesAnswered()).isEqualTo(1);
        assertThat(r.drops).isEmpty();
    }

    @Test
    void theBudgetGrowsOnlyOnAnAnswerNamingTheSizeProbed() {
        ConnectionTestSupport.Recorder r = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection c = server(r);
        c.discoverDatagramBudget(4_000);
        assertThat(c.datagramBudget()).isEqualTo(1200); // nothing asked for larger packets yet
        int before = r.sent.size();
        c.sessionOutput().largerDatagramsWanted();
        assertThat(r.sent).hasSize(before + 1);
        byte[] probe = r.sent.getLast();
        assertThat(probe).hasSize(4_000);
        assertThat(probe[Protocol.FRAME_HEADER_PLAIN]).isEqualTo((byte) Protocol.KEEPALIVE_SIZE_PROBE);
        for (int i = Protocol.FRAME_HEADER_PLAIN + 1; i < probe.length; i++) {
            assertThat(probe[i]).isZero();
        }
        c.sessionOutput().largerDatagramsWanted(); // once is enough: no second probe for the same wish
        assertThat(r.sent).hasSize(before + 1);

        c.receive(answer(3_999), 0, Protocol.FRAME_HEADER_PLAIN + Protocol.KEEPALIVE_SIZE_ANSWER_BODY, 0.01);
        assertThat(c.datagramBudget()).as("an answer naming another size").isEqualTo(1200);
        c.receive(answer(4_000), 0, Protocol.FRAME_HEADER_PLAIN + Protocol.KEEPALIVE_SIZE_ANSWER_BODY, 0.02);
        assertThat(c.datagramBudget()).isEqualTo(4_000);
        assertThat(c.sessionOutput().datagramBuffer().capacity()).isGreaterThanOrEqualTo(4_000);
        // no more tries once answered
        c.update(1.0);
        assertThat(c.sizeProbesSent()).isEqualTo(1);
    }

    @Test
    void anUnansweredSizeIsTriedThreeTimesThenGivenUp() {
        ConnectionTestSupport.Recorder r = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection c = server(r);
        c.discoverDatagramBudget(4_000);
        c.sessionOutput().largerDatagramsWanted();
        assertThat(c.nextHousekeeping()).isLessThanOrEqualTo(SizeProbe.INTERVAL);
        double t = 0;
        for (int i = 0; i < 10; i++) {
            t += SizeProbe.INTERVAL;
            c.update(t);
        }
        assertThat(c.sizeProbesSent()).isEqualTo(SizeProbe.TRIES);
        assertThat(r.sent.stream().filter(f -> f.length == 4_000).count()).isEqualTo(SizeProbe.TRIES);
        // a late answer to a size given up changes nothing
        c.receive(answer(4_000), 0, Protocol.FRAME_HEADER_PLAIN + Protocol.KEEPALIVE_SIZE_ANSWER_BODY, t);
        assertThat(c.datagramBudget()).isEqualTo(1200);
    }

    @Test
    void aTargetNotAboveTheBudgetOrAboveTheLargestIsNeverProbedBeyondIt() {
        ConnectionTestSupport.Recorder r = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection c = server(r);
        c.discoverDatagramBudget(1_200);
        int before = r.sent.size();
        c.sessionOutput().largerDatagramsWanted();
        assertThat(r.sent).hasSize(before);
        c.discoverDatagramBudget(100_000); // capped at the message layer's maxDatagramBudget
        c.sessionOutput().largerDatagramsWanted();
        assertThat(r.sent.getLast()).hasSize(io.reliableudp.message.MessageConfig.DEFAULT_MAX_DATAGRAM_BUDGET);
    }

    @Test
    void theProbeStateAloneGrowsOnlyForTheSizeItProbedAndGivesUpAfterItsTries() {
        ConnectionTestSupport.Recorder r = new ConnectionTestSupport.Recorder(new ArrayList<>());
        FrameSender out = new FrameSender(false, new FrameCodec(false, 1L, 1200), r, 1300, 0);
        SizeProbe sizes = new SizeProbe(1200, 9000);
        assertThat(sizes.answered(4_000, 0)).as("nothing probed").isZero();
        sizes.discover(20_000);
        assertThat(sizes.wanted()).isTrue();
        sizes.send(out, 0);
        assertThat(r.sent.getLast()).hasSize(9_000); // capped at the largest
        assertThat(sizes.wanted()).as("once per wish").isFalse();
        assertThat(sizes.next()).isEqualTo(SizeProbe.INTERVAL);
        assertThat(sizes.answered(8_999, 0)).isZero();
        assertThat(sizes.answered(9_000, 0)).isEqualTo(9_000);
        assertThat(sizes.budget()).isEqualTo(9_000);
        assertThat(sizes.next()).isEqualTo(Double.POSITIVE_INFINITY);

        SizeProbe unanswered = new SizeProbe(1200, 9000);
        unanswered.discover(4_000);
        for (int i = 0; i <= SizeProbe.TRIES; i++) {
            unanswered.send(out, i * SizeProbe.INTERVAL);
        }
        assertThat(unanswered.sent()).isEqualTo(SizeProbe.TRIES);
        assertThat(unanswered.next()).as("given up").isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(unanswered.answered(4_000, 0)).as("a late answer").isZero();
        assertThat(unanswered.budget()).isEqualTo(1200);
    }
}
