package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.DisconnectReason;
import io.reliableudp.message.MessageConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Connection#nextHousekeeping()} lets an owner skip idle connections on its tick: a connection
 * updated only when its housekeeping is due sends the same keepalives at the same ticks, and times out
 * at the same tick, as one updated on every tick, with a fraction of the updates (fake clock, no sockets).
 * Probes after silence ({@link ProbeTest}) are part of the same schedule: the gated side probes at the
 * same ticks.
 */
class KeepAliveScheduleTest {

    private static final double KEEPALIVE = 1.0;
    private static final double TIMEOUT = 5;
    private static final double TICK = 0.125;

    private static ConnectionSettings settings() {
        return new ConnectionSettings(0x1234L, null, KEEPALIVE, TIMEOUT, 5, 0.25,
                MessageConfig.builder().lowerLayerOverhead(Protocol.frameOverhead(false)).build(), ConnectionTestSupport.RECORDING);
    }

    /** A connection with its recorder. */
    private record Side(Connection connection, ConnectionTestSupport.Recorder recorder) {
        static Side create() {
            ConnectionSettings s = settings();
            ConnectionTestSupport.Recorder r = new ConnectionTestSupport.Recorder(new ArrayList<>());
            byte[] cn = new byte[16];
            byte[] sn = new byte[16];
            java.util.Arrays.fill(sn, (byte) 7);
            return new Side(Connection.server(s, r, r, 0x5a17, null, null, null, 0, 0.0), r);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 42})
    void gatedUpdatesSendTheSameKeepalivesAndTimeOutAtTheSameTick(long seed) {
        Side gated = Side.create();
        Side every = Side.create();
        // the peer's frames: a plain keepalive with the connection's salt (the server's own confirmation has that form)
        byte[] peerKeepalive = gated.recorder().sent.get(0).clone();
        assertThat(peerKeepalive[0]).isEqualTo(Protocol.KEEPALIVE);
        Random random = new Random(seed);
        long peerSequence = 0;
        double heardUntil = 8 + random.nextDouble() * 4; // then the peer falls silent: both must time out
        double housekeeping = gated.connection().nextHousekeeping();
        int gatedUpdates = 0;
        int ticks = 0;
        List<Double> keepaliveTimes = new ArrayList<>();
        for (double now = TICK; now < 20; now += TICK) {
            // events between ticks, at the same times on both sides
            double t = now - TICK * random.nextDouble();
            if (t < heardUntil && random.nextInt(4) == 0) {
                ConnectionTestSupport.sequenced(peerKeepalive, ++peerSequence);
                gated.connection().receive(peerKeepalive, 0, peerKeepalive.length, t);
                every.connection().receive(peerKeepalive, 0, peerKeepalive.length, t);
            }
            if (random.nextInt(10) == 0) {
                byte[] m = {(byte) ticks};
                gated.connection().send(0, m, null, t);
                every.connection().send(0, m, null, t);
            }
            // the tick: one side always updated, the other only when its housekeeping is due
            ticks++;
            every.connection().update(now);
            int before = gated.recorder().sent.size();
            if (now >= housekeeping) {
                gatedUpdates++;
                gated.connection().update(now);
                housekeeping = gated.connection().nextHousekeeping();
            }
            for (int i = before; i < gated.recorder().sent.size(); i++) {
                if (gated.recorder().sent.get(i)[0] == Protocol.KEEPALIVE) {
                    keepaliveTimes.add(now);
                }
            }
            assertThat(gated.recorder().sent).as("frames sent by t=%s", now).hasSameSizeAs(every.recorder().sent);
            assertThat(gated.connection().state()).as("state at t=%s", now).isEqualTo(every.connection().state());
        }
        assertThat(every.recorder().disconnects).containsExactly(DisconnectReason.TIMEOUT);
        assertThat(gated.recorder().disconnects).containsExactly(DisconnectReason.TIMEOUT);
        assertThat(gated.connection().nextHousekeeping()).isEqualTo(Double.POSITIVE_INFINITY);
        // keepalives did go out while connected, and the gated side needed far fewer updates than ticks
        assertThat(keepaliveTimes).isNotEmpty();
        assertThat(gatedUpdates).isLessThan(ticks / 3);
    }

    @org.junit.jupiter.api.Test
    void anIdleConnectionCostsAboutOneUpdateAndOneKeepalivePerInterval() {
        Side idle = Side.create();
        int updates = 0;
        int keepalives = 0;
        double housekeeping = idle.connection().nextHousekeeping();
        byte[] peerKeepalive = idle.recorder().sent.get(0).clone();
        long peerSequence = 0;
        // the peer's keepalives (1 to 1.125 intervals apart) keep it alive; nothing else happens for 10 s
        double peerNext = 0.3;
        for (double now = TICK; now < 10.0001; now += TICK) {
            while (peerNext <= now) {
                ConnectionTestSupport.sequenced(peerKeepalive, ++peerSequence);
                idle.connection().receive(peerKeepalive, 0, peerKeepalive.length, peerNext);
                peerNext += 1.1;
            }
            if (now >= housekeeping) {
                updates++;
                int before = idle.recorder().sent.size();
                idle.connection().update(now);
                keepalives += idle.recorder().sent.size() - before;
                housekeeping = idle.connection().nextHousekeeping();
            }
        }
        assertThat(idle.connection().state()).isEqualTo(Connection.State.CONNECTED);
        // a keepalive 1 to 1.125 intervals after the last one: 8 to 10 in 10 s, and no probe (the peer is
        // heard every 1.1 s, inside the 1.5 s of silence that a probe waits for)
        assertThat(keepalives).isBetween(8, 10);
        assertThat(idle.recorder().sent).allSatisfy(f -> assertThat(f.length).isEqualTo(Protocol.FRAME_HEADER_PLAIN));
        // 80 ticks: one update per keepalive, plus the first tick's (the session's housekeeping had never
        // run), plus at most one per keepalive for a probe time that was stale (the peer was heard since
        // the stored time was taken: the update finds nothing to do)
        assertThat(updates).isBetween(keepalives + 1, 2 * keepalives + 1);
    }
}
