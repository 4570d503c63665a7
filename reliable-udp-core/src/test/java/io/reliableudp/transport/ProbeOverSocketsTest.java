package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.connection.Connection;
import io.reliableudp.connection.ConnectionSettings;
import io.reliableudp.internal.WireCodec;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real node over loopback UDP answers PROBE keepalives (one plain keepalive each, none for a plain
 * keepalive or a body without the PROBE bit) and probes a peer that fell silent: the test's end is a
 * raw socket that does the handshake with a core {@link Connection}, then writes and reads frames
 * itself.
 */
@Timeout(60)
class ProbeOverSocketsTest {

    /** Spec 3.7: KEEPALIVE's type, the plain frame header (type, salt), the PROBE flag of its body. */
    private static final byte KEEPALIVE = 5;
    private static final int HEADER = io.reliableudp.connection.WireForTests.FRAME_HEADER;
    private static final int PROBE = 0x01;

    @Test
    void aNodeAnswersEachProbeOnceAndProbesASilentPeer() throws Exception {
        // a 2 s keepalive: its own keepalives are far apart, so every quick plain keepalive is an answer
        NodeConfig serverConfig = loopback().keepAliveInterval(Duration.ofSeconds(2)).timeout(Duration.ofSeconds(20)).build();
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(serverConfig, serverEvents);
             DatagramChannel channel = DatagramChannel.open()) {
            channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            channel.configureBlocking(false);
            InetSocketAddress to = target(server);
            Raw raw = new Raw(channel, to);
            ConnectionSettings settings = IdleConnectionMemoryTest.clientSettings();
            List<DisconnectReason> ended = new ArrayList<>();
            Connection client = Connection.client(settings, raw, new Connection.Events() {
                @Override
                public void onConnected() {
                }

                @Override
                public void onDisconnected(DisconnectReason reason, String detail) {
                    ended.add(reason);
                }

                @Override
                public void onMessage(int channel, int messageId, byte[] data, int offset, int length) {
                }

                @Override
                public void onDrop(DropReason reason) {
                }
            }, new Random(5), now());
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (client.state() != Connection.State.CONNECTED && ended.isEmpty() && System.nanoTime() < deadline) {
                byte[] d = raw.poll(0.05);
                if (d != null) {
                    client.receive(d, 0, d.length, now());
                }
                client.update(now());
            }
            assertThat(client.state()).isEqualTo(Connection.State.CONNECTED);
            int salt = client.salt();
            // from here the test's end is the raw socket alone: the connection object is not driven any more;
            // a confirmation the server repeated for a repeated response is drained first
            raw.collect(0.5);

            // a plain keepalive, five probes, a body without the PROBE bit: exactly five answers
            raw.frame(salt);
            for (int i = 0; i < 5; i++) {
                raw.frame(salt, (byte) PROBE);
            }
            raw.frame(salt, (byte) 0xf8); // bits 3-7: none defined (bits 1 and 2 are the size probe and its answer)
            List<byte[]> got = raw.collect(1.0);
            assertThat(got).allSatisfy(f -> assertThat(f[0]).isEqualTo(KEEPALIVE));
            assertThat(got).as("one plain keepalive per probe, nothing else").hasSize(5)
                    .allSatisfy(f -> assertThat(f).hasSize(HEADER));

            // then silence from our side: the server keeps its keepalives until 3 s (1.5 of its intervals)
            // have passed, then probes
            byte[] probe = null;
            deadline = System.nanoTime() + 15_000_000_000L;
            while (probe == null && System.nanoTime() < deadline) {
                byte[] d = raw.poll(0.1);
                if (d != null && d.length == HEADER + 1) {
                    probe = d;
                }
            }
            assertThat(probe).as("the server probed the silent client").isNotNull();
            assertThat(probe[0]).isEqualTo(KEEPALIVE);
            assertThat(WireCodec.getIntBE(probe, 1)).isEqualTo(salt);
            assertThat(probe[HEADER]).isEqualTo((byte) PROBE);
            // our answer ends the silence: still connected, no timeout
            raw.frame(salt);
            assertThat(serverEvents.disconnected).isEmpty();
            assertThat(server.stats().connections()).isEqualTo(1);
        }
    }

    private static double now() {
        return System.nanoTime() / 1e9;
    }

    /** The test's end of the wire: a non-blocking channel to the server. */
    private static final class Raw implements Connection.Transmitter {
        private final DatagramChannel channel;
        private final InetSocketAddress to;
        private final ByteBuffer in = ByteBuffer.allocate(2048);
        /** The sequence of the next frame written here: past any the connection object sent before. */
        private long sequence = 1_000;

        Raw(DatagramChannel channel, InetSocketAddress to) {
            this.channel = channel;
            this.to = to;
        }

        @Override
        public void transmit(byte[] data, int offset, int length) {
            try {
                channel.send(ByteBuffer.wrap(data, offset, length), to);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        /** A plain KEEPALIVE frame of the connection with {@code body}. */
        void frame(int salt, byte... body) {
            byte[] f = new byte[HEADER + body.length];
            f[0] = KEEPALIVE;
            WireCodec.putIntBE(f, 1, salt);
            WireCodec.putLongBE(f, 5, sequence++);
            System.arraycopy(body, 0, f, HEADER, body.length);
            transmit(f, 0, f.length);
        }

        /** The next datagram within {@code seconds}, or null. */
        byte @Nullable [] poll(double seconds) throws Exception {
            long until = System.nanoTime() + (long) (seconds * 1e9);
            do {
                in.clear();
                if (channel.receive(in) != null) {
                    in.flip();
                    return Arrays.copyOf(in.array(), in.limit());
                }
                Thread.sleep(1);
            } while (System.nanoTime() < until);
            return null;
        }

        /** Every datagram that arrives within {@code seconds}. */
        List<byte[]> collect(double seconds) throws Exception {
            List<byte[]> got = new ArrayList<>();
            long until = System.nanoTime() + (long) (seconds * 1e9);
            while (System.nanoTime() < until) {
                byte[] d = poll(0.01);
                if (d != null) {
                    got.add(d);
                }
            }
            return got;
        }
    }
}
