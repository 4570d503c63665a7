package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.CopyingSession;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.MessageConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.jspecify.annotations.Nullable;

/**
 * The in-place send path against the copying one, whole stack: the same seeded handshake, messages,
 * clock and losses are run twice, once over the production {@link MessageSession} (frames composed in
 * the connection's datagram buffer, packet header and frame header written in front, sealed in place,
 * a direct buffer in plain mode) and once over {@link CopyingSession} (the packet layer's copying
 * {@code byte[]} send, the packet copied into the connection's buffer), and every datagram both
 * sides put on the wire must be the same, byte for byte, in plain and in encrypted mode. The message
 * mixes cover all four delivery modes, small messages (MSG and NEXT frames), sliced reliable
 * messages, fragmented unreliable ones, empty ones, ack-only packets, keepalives and resends after losses.
 */
class InPlaceDatagramPropertyTest {

    private static final long PROTOCOL_ID = 0x1234_5678_9abc_def0L;
    private static final InetSocketAddress CLIENT = address();

    @Property(tries = 60)
    void theInPlacePathPutsTheSameDatagramsOnTheWireAsTheCopyingPath(@ForAll long seed, @ForAll boolean encrypted) {
        byte[] psk = null;
        if (encrypted) {
            psk = new byte[32];
            new SplittableRandom(seed ^ 0x5eed).nextBytes(psk);
        }
        Run inPlace = Run.of(psk, MessageSession.FACTORY, seed);
        Run copying = Run.of(psk, CopyingSession.FACTORY, seed);

        assertSame("client", inPlace.client.sent, copying.client.sent);
        assertSame("server", inPlace.server.sent, copying.server.sent);
        assertSame("delivered to the client", inPlace.clientGot, copying.clientGot);
        assertSame("delivered to the server", inPlace.serverGot, copying.serverGot);
        assertThat(inPlace.client.drops).isEqualTo(copying.client.drops);
        assertThat(inPlace.server.drops).isEqualTo(copying.server.drops);
        // the run did exchange messages (payload frames, not only the handshake and keepalives)
        assertThat(inPlace.serverGot.size() + inPlace.clientGot.size()).isPositive();
    }

    private static void assertSame(String what, List<byte[]> actual, List<byte[]> expected) {
        assertThat(actual).as("%s: count", what).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(actual.get(i)).as("%s: datagram %d", what, i).isEqualTo(expected.get(i));
        }
    }

    /** One seeded run of a client and a server connection. */
    private static final class Run {
        final List<byte[]> clientGot = new ArrayList<>();
        final List<byte[]> serverGot = new ArrayList<>();
        final ConnectionTestSupport.Recorder client = new ConnectionTestSupport.Recorder(clientGot);
        final ConnectionTestSupport.Recorder server = new ConnectionTestSupport.Recorder(serverGot);

        static Run of(byte @Nullable [] psk, Session.Factory sessions, long seed) {
            Run run = new Run();
            SplittableRandom random = new SplittableRandom(seed);
            MessageConfig message = MessageConfig.builder()
                    .channels(List.of(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED),
                            ChannelConfig.of(DeliveryMode.RELIABLE_UNORDERED), ChannelConfig.of(DeliveryMode.UNRELIABLE),
                            ChannelConfig.of(DeliveryMode.UNRELIABLE_SEQUENCED)))
                    .lowerLayerOverhead(Protocol.frameOverhead(psk != null))
                    .build();
            ConnectionSettings settings = new ConnectionSettings(PROTOCOL_ID, psk, 0.1, 5, 5, 0.1, message, sessions);
            byte[] clientNonce = new byte[Protocol.NONCE_BYTES];
            random.nextBytes(clientNonce);
            HandshakeServer handshake = new HandshakeServer(settings, new SeededRandom(random.nextLong()),
                    new ConnectionFuzzTest.CountingReporter());
            // the client's ephemeral key from the seed too: both runs put the same handshake on the wire
            Connection c = Connection.client(settings, run.client, run.client, clientNonce, new SeededRandom(random.nextLong()), 0.000);
            byte[] reply = new byte[Protocol.REQUEST_SIZE];
            byte[] request = last(run.client.sent);
            int n = handshake.onRequest(CLIENT, request, 0, request.length, 1_000, true, true, reply);
            c.receive(reply, 0, n, 0.001);
            byte[] response = last(run.client.sent);
            HandshakeServer.Verified verified = handshake.onResponse(CLIENT, response, 0, response.length, 1_002, reply);
            assertThat(verified).isNotNull();
            Connection s = Connection.server(settings, run.server, run.server, verified, 0.002);
            int[] delivered = {0, 0};
            double time = 0.002;
            deliver(run, c, s, delivered, null, time); // the confirmation, not lost
            assertThat(c.state()).isEqualTo(Connection.State.CONNECTED);

            int steps = 50 + random.nextInt(250);
            for (int step = 0; step < steps; step++) {
                time += 0.001 + random.nextDouble(0.03);
                int action = random.nextInt(10);
                Connection side = random.nextBoolean() ? c : s;
                if (action < 5) {
                    for (int k = random.nextInt(1, 40); k > 0; k--) {
                        int channel = random.nextInt(4);
                        byte[] payload = new byte[size(random)];
                        random.nextBytes(payload);
                        side.send(channel, payload, null, time);
                    }
                } else if (action == 5) {
                    side.flush(time);
                } else {
                    c.update(time);
                    s.update(time);
                }
                deliver(run, c, s, delivered, random, time);
            }
            return run;
        }

        private static int size(SplittableRandom random) {
            return switch (random.nextInt(10)) {
                case 0 -> 0;
                case 1 -> 100 + random.nextInt(1200);   // NEXT with an extended length, or one per packet
                case 2 -> 1200 + random.nextInt(3000);  // sliced (reliable) or fragmented (unreliable)
                default -> random.nextInt(64);
            };
        }

        /** Delivers what each side sent since the last call to the other, one in ten lost (none without a random), until quiet. */
        private static void deliver(Run run, Connection c, Connection s, int[] delivered, @Nullable SplittableRandom random,
                double time) {
            boolean moved = true;
            while (moved) {
                moved = false;
                while (delivered[0] < run.client.sent.size()) {
                    byte[] d = run.client.sent.get(delivered[0]++);
                    moved = true;
                    if (random == null || random.nextInt(10) != 0) {
                        s.receive(d, 0, d.length, time);
                    }
                }
                while (delivered[1] < run.server.sent.size()) {
                    byte[] d = run.server.sent.get(delivered[1]++);
                    moved = true;
                    if (random == null || random.nextInt(10) != 0) {
                        c.receive(d, 0, d.length, time);
                    }
                }
            }
        }
    }

    /** A SecureRandom whose bytes come from a fixed seed: the handshake's nonce, salt and cookie key. */
    private static final class SeededRandom extends SecureRandom {
        private static final long serialVersionUID = 1L;
        private final transient SplittableRandom random;

        SeededRandom(long seed) {
            this.random = new SplittableRandom(seed);
        }

        @Override
        public void nextBytes(byte[] bytes) {
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = (byte) random.nextInt(256);
            }
        }
    }

    private static byte[] last(List<byte[]> sent) {
        return sent.get(sent.size() - 1);
    }

    private static InetSocketAddress address() {
        try {
            return new InetSocketAddress(InetAddress.getByAddress(new byte[] {(byte) 192, 0, 2, 9}), 40_002);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
