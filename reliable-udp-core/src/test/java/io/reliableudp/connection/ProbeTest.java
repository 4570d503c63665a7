package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.link.LinkConditioner;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.MessageConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * PROBE keepalives (spec 3.7, 3.10): after silence beyond the peer's keepalive schedule a connected end
 * probes every probe interval, a probe is answered exactly once with a plain keepalive, an answer is
 * not answered, a connection that hears its peer never probes; and on a seeded lossy link probes keep
 * an idle connection alive where keepalives alone time out (fake clock, no sockets).
 */
class ProbeTest {

    private static final double KEEPALIVE = 1.0;
    private static final double TIMEOUT = 5;
    /** The node's tick at the defaults (min(keepalive, 250 ms) / 2). */
    private static final double TICK = 0.125;
    private static final double PROBE_INTERVAL = ConnectionSettings.probeInterval(KEEPALIVE, TICK);
    private static final long PROTOCOL = 0x50524f4245000001L;

    static ConnectionSettings settings(byte @Nullable [] key) {
        return new ConnectionSettings(PROTOCOL, key, KEEPALIVE, TIMEOUT, 5, 0.25,
                MessageConfig.builder().lowerLayerOverhead(Protocol.frameOverhead(key != null)).build(),
                ConnectionTestSupport.RECORDING, true, PROBE_INTERVAL);
    }

    /** A server-side connection with salt 0x5a17 and its recorder (plain mode). */
    private static Connection server(ConnectionSettings s, ConnectionTestSupport.Recorder r) {
        byte[] cn = new byte[16];
        byte[] sn = new byte[16];
        Arrays.fill(sn, (byte) 7);
        return Connection.server(s, r, r, 0x5a17, null, null, null, 0, 0.0);
    }

    static boolean isProbe(byte[] frame, boolean encrypted) {
        return frame[0] == Protocol.KEEPALIVE && frame.length == Protocol.frameOverhead(encrypted) + Protocol.KEEPALIVE_PROBE_BODY;
    }

    static boolean isPlainKeepalive(byte[] frame, boolean encrypted) {
        return frame[0] == Protocol.KEEPALIVE && frame.length == Protocol.frameOverhead(encrypted);
    }

    @Test
    void theChosenNumbers() {
        assertThat(PROBE_INTERVAL).isEqualTo(0.25);
        assertThat(settings(null).probeAfter()).isEqualTo(1.5);
        // never below the tick, nor below the floor
        assertThat(ConnectionSettings.probeInterval(0.2, 0.1)).isEqualTo(0.1);
        assertThat(ConnectionSettings.probeInterval(0.1, 0.05)).isEqualTo(ConnectionSettings.MIN_PROBE_INTERVAL);
        assertThat(ConnectionSettings.probeInterval(1.0, 0.5)).isEqualTo(0.5);
    }

    @Test
    void silenceProbesAtTheChosenTimesUntilTheTimeout() {
        ConnectionTestSupport.Recorder r = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection c = server(settings(null), r);
        assertThat(r.sent).hasSize(1); // the confirmation, at 0
        List<Double> probes = new ArrayList<>();
        List<Double> keepalives = new ArrayList<>();
        double housekeeping = c.nextHousekeeping();
        for (int n = 1; n <= 60 && c.state() == Connection.State.CONNECTED; n++) {
            double now = n * TICK;
            if (now >= housekeeping) { // as the lane's heap wakes it: only when due
                int before = r.sent.size();
                c.update(now);
                for (int i = before; i < r.sent.size(); i++) {
                    byte[] f = r.sent.get(i);
                    if (isProbe(f, false)) {
                        assertThat(f[Protocol.FRAME_HEADER_PLAIN]).isEqualTo((byte) Protocol.KEEPALIVE_PROBE);
                        probes.add(now);
                    } else if (isPlainKeepalive(f, false)) {
                        keepalives.add(now);
                    }
                }
                housekeeping = c.nextHousekeeping();
            }
        }
        // a keepalive 1 interval after the confirmation; nothing heard for 1.5 s: a probe, then one every
        // 250 ms (each is a keepalive too: no plain one in between) until the timeout after 5 s
        assertThat(keepalives).containsExactly(1.0);
        List<Double> expected = new ArrayList<>();
        for (double t = 1.5; t <= TIMEOUT; t += 0.25) {
            expected.add(t);
        }
        assertThat(probes).containsExactlyElementsOf(expected).hasSize(15);
        assertThat(c.probesSent()).isEqualTo(15);
        assertThat(r.disconnects).containsExactly(DisconnectReason.TIMEOUT);
    }

    @Test
    void hearingThePeerStopsTheProbesAndMovesTheNextOneLater() {
        ConnectionTestSupport.Recorder r = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection c = server(settings(null), r);
        byte[] peerKeepalive = r.sent.get(0).clone();
        c.update(1.5);
        assertThat(c.probesSent()).isEqualTo(1);
        assertThat(c.nextHousekeeping()).isEqualTo(1.75);
        c.receive(peerKeepalive, 0, peerKeepalive.length, 1.6);
        // heard at 1.6: the next probe only after 1.5 s more of silence (the keepalive comes first)
        assertThat(c.nextHousekeeping()).isEqualTo(2.5); // lastSend 1.5 + keepalive interval
        c.update(2.5);
        assertThat(c.probesSent()).isEqualTo(1);
        assertThat(c.nextHousekeeping()).isEqualTo(1.6 + 1.5);
        c.update(1.6 + 1.5);
        assertThat(c.probesSent()).isEqualTo(2);
    }

    @ParameterizedTest(name = "encrypted={0}")
    @ValueSource(booleans = {false, true})
    void aProbeIsAnsweredExactlyOnceAndAnAnswerIsNotAnswered(boolean encrypted) {
        Pair p = Pair.connect(encrypted ? new byte[32] : null, false, false);
        int clientBefore = p.clientWire.sent.size();
        // the server probes after its silence; the client answers it with one plain keepalive
        int serverSent = p.serverWire.sent.size();
        p.server.update(1.6); // heard at 0.05: silent for more than 1.5 s
        assertThat(p.serverWire.sent).hasSize(serverSent + 1);
        byte[] probe = p.serverWire.last();
        assertThat(isProbe(probe, encrypted)).isTrue();
        p.client.receive(probe, 0, probe.length, 1.61);
        assertThat(p.clientWire.sent).hasSize(clientBefore + 1);
        byte[] answer = p.clientWire.last();
        assertThat(isPlainKeepalive(answer, encrypted)).as("an answer is a plain keepalive").isTrue();
        assertThat(p.client.probesAnswered()).isEqualTo(1);
        // the answer counts as the client's traffic: its own keepalive is due 1.25 intervals after it
        // (a client's own keepalive waits 1.25 intervals: Liveness.CLIENT_KEEPALIVE_FACTOR)
        p.client.update(1.61 + 1.25 - 0.01);
        assertThat(p.clientWire.sent).hasSize(clientBefore + 1);
        p.client.update(1.61 + 1.25);
        assertThat(p.clientWire.sent).hasSize(clientBefore + 2);
        assertThat(isPlainKeepalive(p.clientWire.last(), encrypted)).isTrue();
        clientBefore++;
        // the server hears the answer and does not answer it (no ping-pong); its probes stop
        int serverBefore = p.serverWire.sent.size();
        p.server.receive(answer, 0, answer.length, 1.62);
        assertThat(p.serverWire.sent).hasSize(serverBefore);
        assertThat(p.server.probesAnswered()).isZero();
        assertThat(p.server.nextHousekeeping()).isGreaterThan(1.62 + 0.9);
        // a second probe gets a second answer, one each
        p.server.update(1.62 + 1.5);
        byte[] probe2 = p.serverWire.last();
        assertThat(isProbe(probe2, encrypted)).isTrue();
        assertThat(p.server.probesSent()).isEqualTo(2);
        p.client.receive(probe2, 0, probe2.length, 3.13);
        assertThat(p.client.probesAnswered()).isEqualTo(2);
        assertThat(p.clientWire.sent).hasSize(clientBefore + 2);
        // a replayed probe is dropped before it could be answered, plain or encrypted
        p.client.receive(probe2, 0, probe2.length, 3.14);
        assertThat(p.client.probesAnswered()).isEqualTo(2);
        assertThat(p.clientRecorder.drops).containsExactly(DropReason.REPLAYED);
        assertThat(p.client.state()).isEqualTo(Connection.State.CONNECTED);
        assertThat(p.server.state()).isEqualTo(Connection.State.CONNECTED);
    }

    @Test
    void unknownFlagBitsAreIgnoredAndAV1PeerDoesNotAnswer() {
        ConnectionTestSupport.Recorder r = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection c = server(settings(null), r);
        byte[] frame = Arrays.copyOf(r.sent.get(0), Protocol.FRAME_HEADER_PLAIN + 1);
        frame[Protocol.FRAME_HEADER_PLAIN] = (byte) 0xf8; // every bit not defined (3-7)
        c.receive(frame, 0, frame.length, 0.1);
        assertThat(r.sent).hasSize(1);
        frame[Protocol.FRAME_HEADER_PLAIN] = (byte) 0xf9; // PROBE and unknown bits: answered once
        ConnectionTestSupport.sequenced(frame, 1);
        c.receive(frame, 0, frame.length, 0.2);
        assertThat(r.sent).hasSize(2);
        assertThat(isPlainKeepalive(r.sent.get(1), false)).isTrue();
        // a longer body: only its first byte is the flags
        byte[] longer = ConnectionTestSupport.sequenced(Arrays.copyOf(frame, frame.length + 3), 2);
        c.receive(longer, 0, longer.length, 0.3);
        assertThat(r.sent).hasSize(3);
        assertThat(r.drops).isEmpty();

        // an end without probes (as before them) takes a probe as a keepalive: accepted, not answered
        ConnectionTestSupport.Recorder old = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection v1 = server(settings(null).withoutProbes(), old);
        v1.receive(frame, 0, frame.length, 4.0);
        assertThat(old.sent).hasSize(1);
        assertThat(old.drops).isEmpty();
        v1.update(4.9); // heard at 4.0: not timed out; it sends a keepalive, never a probe
        assertThat(v1.state()).isEqualTo(Connection.State.CONNECTED);
        assertThat(v1.probesSent()).isZero();
        assertThat(old.sent).allSatisfy(f -> assertThat(isPlainKeepalive(f, false)).isTrue());
    }

    @Test
    void aConnectionThatHearsItsPeerNeverProbes() {
        ConnectionTestSupport.Recorder r = new ConnectionTestSupport.Recorder(new ArrayList<>());
        Connection c = server(settings(null), r);
        byte[] peerKeepalive = r.sent.get(0).clone();
        // the peer's keepalive schedule at its slowest: 1.125 intervals apart, seen one tick late
        double peerNext = KEEPALIVE + 2 * TICK;
        double housekeeping = c.nextHousekeeping();
        for (int n = 1; n <= 8 * 60; n++) {
            double now = n * TICK;
            while (peerNext <= now) {
                ConnectionTestSupport.sequenced(peerKeepalive, n);
                c.receive(peerKeepalive, 0, peerKeepalive.length, peerNext);
                peerNext += KEEPALIVE + 2 * TICK;
            }
            if (n % 3 == 0) {
                c.send(0, new byte[] {(byte) n}, null, now); // and some traffic of its own
            }
            if (now >= housekeeping) {
                c.update(now);
                housekeeping = c.nextHousekeeping();
            }
        }
        assertThat(c.state()).isEqualTo(Connection.State.CONNECTED);
        assertThat(c.probesSent()).isZero();
        assertThat(r.sent).noneSatisfy(f -> assertThat(isProbe(f, false)).isTrue());
    }

    /**
     * 30 % random loss each way, seeded, idle for 30 minutes (360 timeouts): with probes the connection
     * lives on, both ends; the same link and seed with probes off on both ends (ends that predate probes)
     * times out. The control runs first: it shows the link is lossy enough to kill a connection that has
     * only its keepalives (20 seeds of this link: every control timed out, after 323 s on average; every
     * probing run lived the 30 minutes).
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void probesKeepAnIdleConnectionAliveOnALinkThatKillsKeepalivesAlone(long seed) {
        LossyRun control = LossyRun.run(seed, 0.3, false, 1800);
        assertThat(control.timedOutAt).as("control (no probes) times out").isLessThan(1800);
        LossyRun probing = LossyRun.run(seed, 0.3, true, 1800);
        assertThat(probing.timedOutAt).as("with probes: never timed out").isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(probing.pair.client.state()).isEqualTo(Connection.State.CONNECTED);
        assertThat(probing.pair.server.state()).isEqualTo(Connection.State.CONNECTED);
        assertThat(probing.pair.client.probesSent() + probing.pair.server.probesSent()).isPositive();
        assertThat(probing.pair.client.probesAnswered() + probing.pair.server.probesAnswered()).isPositive();
    }

    /**
     * 60 % loss each way (a round trip gets through 16 % of the time) ends probing connections too, but
     * they live several times longer than keepalives alone do: 10 seeds each, time to the first timeout
     * (at most 30 minutes).
     */
    @Test
    void atSixtyPercentLossProbesLiveSeveralTimesLonger() {
        double control = 0;
        double probing = 0;
        for (long seed = 1; seed <= 10; seed++) {
            control += Math.min(1800, LossyRun.run(seed, 0.6, false, 1800).timedOutAt);
            probing += Math.min(1800, LossyRun.run(seed, 0.6, true, 1800).timedOutAt);
        }
        assertThat(control / 10).as("control's mean life").isLessThan(30);
        assertThat(probing).as("probing's total life").isGreaterThan(4 * control);
    }

    /** A probing end whose peer predates probes (off there) probes after silence but is never answered. */
    @Test
    void aPeerWithoutProbesIsProbedButNeverAnswers() {
        LossyRun run = LossyRun.run(7, 0.6, true, 600, true);
        assertThat(run.pair.client.probesSent()).isPositive();
        assertThat(run.pair.server.probesAnswered()).isZero();
        assertThat(run.pair.server.probesSent()).isZero();
        assertThat(run.pair.client.probesAnswered()).isZero();
    }

    /** Two connections over a seeded lossy link in both directions, idle, driven as a node drives them. */
    private static final class LossyRun {
        Pair pair;
        double timedOutAt = Double.POSITIVE_INFINITY;

        static LossyRun run(long seed, double loss, boolean probes, double seconds) {
            return run(seed, loss, probes, seconds, false);
        }

        static LossyRun run(long seed, double loss, boolean probes, double seconds, boolean v1Server) {
            LossyRun run = new LossyRun();
            Pair p = Pair.connect(null, !probes, !probes || v1Server);
            run.pair = p;
            // 5 ms steps (datagrams arrive between ticks), both ends on the same tick
            p.drive(loss, seed, TICK / 25, 25, 0, 0, seconds, now -> {
                if (p.client.state() != Connection.State.CONNECTED || p.server.state() != Connection.State.CONNECTED) {
                    run.timedOutAt = now;
                    return false;
                }
                return true;
            });
            return run;
        }
    }

    /** Sends into a link once one is set, and records every frame. */
    static final class Wire implements Connection.Transmitter {
        final List<byte[]> sent = new ArrayList<>();
        @Nullable LinkConditioner link;
        double now;

        @Override
        public void transmit(byte[] data, int offset, int length) {
            sent.add(Arrays.copyOfRange(data, offset, offset + length));
            LinkConditioner l = link;
            if (l != null) {
                l.submit(data, offset, length, now);
            }
        }

        byte[] last() {
            return sent.get(sent.size() - 1);
        }
    }

    /** A client and a server connection after a real handshake (in memory, at t = 0.0 to 0.1). */
    record Pair(Connection client, Wire clientWire, ConnectionTestSupport.Recorder clientRecorder,
                        Connection server, Wire serverWire) {

        static Pair connect(byte @Nullable [] key, boolean clientWithoutProbes, boolean serverWithoutProbes) {
            ConnectionSettings base = settings(key);
            ConnectionSettings cs = clientWithoutProbes ? base.withoutProbes() : base;
            ConnectionSettings ss = serverWithoutProbes ? base.withoutProbes() : base;
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5000);
            HandshakeServer hs = new HandshakeServer(ss, new SecureRandom(), new ConnectionFuzzTest.CountingReporter());
            Wire cw = new Wire();
            ConnectionTestSupport.Recorder cr = new ConnectionTestSupport.Recorder(new ArrayList<>());
            Connection client = Connection.client(cs, cw, cr, new byte[16], 0.0);
            byte[] out = new byte[Protocol.REQUEST_SIZE];
            byte[] request = cw.last();
            int n = hs.onRequest(address, request, 0, request.length, 10, true, true, out);
            client.receive(out, 0, n, 0.01);
            byte[] response = cw.last();
            HandshakeServer.Verified v = hs.onResponse(address, response, 0, response.length, 20, out);
            assertThat(v).isNotNull();
            Wire sw = new Wire();
            ConnectionTestSupport.Recorder sr = new ConnectionTestSupport.Recorder(new ArrayList<>());
            Connection server = Connection.server(ss, sw, sr, v, 0.02);
            byte[] confirm = sw.last();
            client.receive(confirm, 0, confirm.length, 0.03);
            assertThat(client.state()).isEqualTo(Connection.State.CONNECTED);
            // the client's first frame (a message) confirms it to the server
            client.send(0, new byte[] {1}, null, 0.04);
            byte[] first = cw.last();
            server.receive(first, 0, first.length, 0.05);
            assertThat(server.state()).isEqualTo(Connection.State.CONNECTED);
            return new Pair(client, cw, cr, server, sw);
        }

        /** Asked after every step of {@link #drive}; false ends the run. */
        @FunctionalInterface
        interface Step {
            boolean next(double now);
        }

        /**
         * Runs the pair over two seeded links (10 ms latency, 2 ms jitter, {@code loss} each way; the
         * server-bound link's seed is {@code seed}, the other's {@code seed * 31 + 17}) from t = 0.1 for
         * {@code seconds}, in steps of {@code step} seconds: each step delivers what arrived, then each
         * end's update runs on its own tick (every {@code stepsPerTick} steps, at its phase) when its
         * housekeeping is due, as the I/O loop wakes it; then {@code after} is asked whether to go on.
         */
        void drive(double loss, long seed, double step, int stepsPerTick, int clientPhase, int serverPhase,
                   double seconds, Step after) {
            LinkConditioner toServer = new LinkConditioner(link(loss, seed));
            LinkConditioner toClient = new LinkConditioner(link(loss, seed * 31 + 17));
            clientWire.link = toServer;
            serverWire.link = toClient;
            double clientHk = client.nextHousekeeping();
            double serverHk = server.nextHousekeeping();
            long steps = Math.round(seconds / step);
            for (long n = 1; n <= steps; n++) {
                double now = 0.1 + n * step;
                clientWire.now = now;
                serverWire.now = now;
                toServer.poll(now, (d, o, l) -> server.receive(d, o, l, now));
                toClient.poll(now, (d, o, l) -> client.receive(d, o, l, now));
                if ((n + clientPhase) % stepsPerTick == 0 && now >= clientHk) {
                    client.update(now);
                    clientHk = client.nextHousekeeping();
                }
                if ((n + serverPhase) % stepsPerTick == 0 && now >= serverHk) {
                    server.update(now);
                    serverHk = server.nextHousekeeping();
                }
                if (!after.next(now)) {
                    return;
                }
            }
        }

        private static LinkConditionerConfig link(double loss, long seed) {
            return new LinkConditionerConfig(10, 2, loss, 0, 1, 0, 0, 0, 0, 0, 1 << 20, seed);
        }
    }
}
