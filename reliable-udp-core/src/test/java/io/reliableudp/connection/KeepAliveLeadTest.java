package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On an idle connection the server's keepalive leads and the client's answers it within the round trip
 * ({@link Liveness#CLIENT_KEEPALIVE_FACTOR}): a server's keepalives leave from its housekeeping tick,
 * many connections' at once, so their answers reach it together and one wake-up of its I/O thread serves
 * several (docs/connection.md, "An idle node"). Still one keepalive each way per interval, no probes; a
 * client whose server stays silent sends its own after 1.25 intervals; a busy client answers nothing; the
 * server's confirmation is not answered (the handshake's datagrams stay as they were). Fake clock, a
 * seeded link with 10 ms latency and 2 ms jitter, each end ticking at its own phase.
 */
class KeepAliveLeadTest {

    private static final double KEEPALIVE = 1.0;
    /** The node's tick at the defaults (min(keepalive, 250 ms) / 2). */
    private static final double TICK = 0.125;
    private static final double STEP = 0.001;
    private static final int STEPS_PER_TICK = (int) Math.round(TICK / STEP);

    /** A frame one end sent, with when. */
    private record Sent(double at, byte[] frame) {
        boolean plainKeepalive() {
            return ProbeTest.isPlainKeepalive(frame, false);
        }

        boolean probe() {
            return ProbeTest.isProbe(frame, false);
        }
    }

    /** An idle pair driven as two nodes drive them: datagrams between ticks, each end woken only when due. */
    private static final class IdleRun {
        final ProbeTest.Pair pair = ProbeTest.Pair.connect(null, false, false);
        final List<Sent> client = new ArrayList<>();
        final List<Sent> server = new ArrayList<>();
        private int clientSeen;
        private int serverSeen;

        IdleRun(long seed, double seconds) {
            Random random = new Random(seed);
            int clientPhase = random.nextInt(STEPS_PER_TICK);
            int serverPhase = random.nextInt(STEPS_PER_TICK);
            clientSeen = pair.clientWire().sent.size();
            serverSeen = pair.serverWire().sent.size();
            pair.drive(0, seed, STEP, STEPS_PER_TICK, clientPhase, serverPhase, seconds, now -> {
                record(now);
                return true;
            });
        }

        private void record(double now) {
            List<byte[]> c = pair.clientWire().sent;
            for (; clientSeen < c.size(); clientSeen++) {
                client.add(new Sent(now, c.get(clientSeen)));
            }
            List<byte[]> s = pair.serverWire().sent;
            for (; serverSeen < s.size(); serverSeen++) {
                server.add(new Sent(now, s.get(serverSeen)));
            }
        }
    }

    private static List<Double> plainKeepalivesAfter(List<Sent> sent, double from) {
        return sent.stream().filter(s -> s.at() >= from && s.plainKeepalive()).map(Sent::at).toList();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void theServerLeadsAndTheClientAnswersWithinTheRoundTrip(long seed) {
        IdleRun run = new IdleRun(seed, 120);
        List<Double> serverKeepalives = plainKeepalivesAfter(run.server, 5);
        List<Double> clientKeepalives = plainKeepalivesAfter(run.client, 5);

        // the server's schedule is its own: one keepalive 1 to 1.125 intervals after its last
        for (int i = 1; i < serverKeepalives.size(); i++) {
            assertThat(serverKeepalives.get(i) - serverKeepalives.get(i - 1)).isBetween(KEEPALIVE - 1e-9, KEEPALIVE + TICK + STEP);
        }
        // every keepalive of the client is an answer: sent within the one-way latency (10 +- 2 ms) of one of the server's
        assertThat(clientKeepalives).isNotEmpty().allSatisfy(t -> assertThat(serverKeepalives)
                .anySatisfy(s -> assertThat(t - s).isBetween(0.0, 0.015)));
        // still one keepalive each way per interval: answers replace the client's own, they do not add to them
        assertThat(clientKeepalives.size()).isBetween(serverKeepalives.size() - 1, serverKeepalives.size() + 1);
        assertThat(run.pair.client().keepalivesAnswered()).isGreaterThanOrEqualTo(clientKeepalives.size());
        // nobody hears silence: no probes, and the server never answers a keepalive
        assertThat(run.client).noneMatch(Sent::probe);
        assertThat(run.server).noneMatch(Sent::probe);
        assertThat(run.pair.server().keepalivesAnswered()).isZero();
        assertThat(run.pair.client().state()).isEqualTo(Connection.State.CONNECTED);
        assertThat(run.pair.server().state()).isEqualTo(Connection.State.CONNECTED);
    }

    @Test
    void aClientWhoseServerIsSilentSendsItsOwnKeepaliveAfterOneAndAQuarterIntervals() {
        ProbeTest.Pair p = ProbeTest.Pair.connect(null, false, false);
        // the handshake as before: REQUEST, RESPONSE and the first message, no answer to the confirmation
        assertThat(p.clientWire().sent).hasSize(3);
        assertThat(p.client().keepalivesAnswered()).isZero();
        int before = p.clientWire().sent.size();
        // the client's last frame went at 0.04: nothing of its own before 0.04 + 1.25 (1 s on a server)
        p.client().update(0.04 + KEEPALIVE);
        p.client().update(0.04 + 1.25 * KEEPALIVE - 0.001);
        assertThat(p.clientWire().sent).hasSize(before);
        assertThat(p.client().nextHousekeeping()).isEqualTo(0.04 + 1.25 * KEEPALIVE);
        p.client().update(0.04 + 1.25 * KEEPALIVE);
        assertThat(p.clientWire().sent).hasSize(before + 1);
        assertThat(ProbeTest.isPlainKeepalive(p.clientWire().last(), false)).isTrue();
        assertThat(p.client().keepalivesAnswered()).isZero();
    }

    @Test
    void aBusyClientAnswersNothingAndTheServerNeverAnswers() {
        ProbeTest.Pair p = ProbeTest.Pair.connect(null, false, false);
        p.server().update(1.2); // the server's keepalive, 1 s after its last frame (the confirmation at 0.02)
        byte[] keepalive = p.serverWire().last();
        assertThat(ProbeTest.isPlainKeepalive(keepalive, false)).isTrue();
        // a client that sent 0.3 s ago (less than half an interval) does not answer
        p.client().send(0, new byte[] {2}, null, 0.9);
        byte[] message = p.clientWire().last();
        p.server().receive(message, 0, message.length, 0.91); // heard: the server does not probe
        int before = p.clientWire().sent.size();
        p.client().receive(keepalive, 0, keepalive.length, 1.2);
        assertThat(p.clientWire().sent).hasSize(before);
        // one that sent nothing for half an interval answers at once, once
        p.server().update(2.2);
        byte[] next = p.serverWire().last();
        assertThat(ProbeTest.isPlainKeepalive(next, false)).isTrue();
        p.client().receive(next, 0, next.length, 2.21);
        assertThat(p.clientWire().sent).hasSize(before + 1);
        byte[] answer = p.clientWire().last();
        assertThat(ProbeTest.isPlainKeepalive(answer, false)).isTrue();
        assertThat(p.client().keepalivesAnswered()).isEqualTo(1);
        // the server takes the answer and sends nothing back
        int serverBefore = p.serverWire().sent.size();
        p.server().receive(answer, 0, answer.length, 2.22);
        assertThat(p.serverWire().sent).hasSize(serverBefore);
        assertThat(p.server().keepalivesAnswered()).isZero();
    }
}
