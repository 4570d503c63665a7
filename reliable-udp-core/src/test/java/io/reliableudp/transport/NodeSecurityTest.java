package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.connection.WireForTests;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class NodeSecurityTest {

    private static byte[] key() {
        byte[] k = new byte[32];
        new SecureRandom().nextBytes(k);
        return k;
    }

    private static long dropped(ReliableUdpNode node, String reason) {
        return node.stats().datagramsDropped().getOrDefault(reason, 0L);
    }

    @Test
    void replayedAndTamperedEncryptedPacketsAreDroppedAndCounted() throws Exception {
        byte[] k = key();
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().preSharedKey(k).build(), serverEvents);
             UdpProxy proxy = new UdpProxy(target(server));
             ReliableUdpNode client = ReliableUdpNode.start(loopback().preSharedKey(k).build(), new RecordingListener())) {
            Peer p = client.connect(proxy.address()).get(5, TimeUnit.SECONDS);
            p.send(0, "secret message".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.messages.size() == 1);
            byte[] payloadFrame = proxy.fromClient.stream().filter(d -> d[0] == WireForTests.PAYLOAD).findFirst().orElseThrow();
            // the plaintext is not on the wire
            assertThat(new String(payloadFrame, java.nio.charset.StandardCharsets.ISO_8859_1)).doesNotContain("secret");

            proxy.inject(payloadFrame); // replay
            await().atMost(Duration.ofSeconds(5)).until(() -> dropped(server, "replayed") >= 1);

            byte[] tampered = payloadFrame.clone();
            tampered[tampered.length - 20] ^= 0x01; // flip a ciphertext bit
            tampered[5 + 7] ^= 0x40; // and a fresh sequence so the window lets it through to the tag check
            proxy.inject(tampered);
            await().atMost(Duration.ofSeconds(5)).until(() -> dropped(server, "decrypt_failed") >= 1);

            byte[] forgedSequence = payloadFrame.clone();
            forgedSequence[5 + 6] ^= 0x01; // sequence is authenticated data
            proxy.inject(forgedSequence);
            await().atMost(Duration.ofSeconds(5)).until(() -> dropped(server, "decrypt_failed") >= 2);

            assertThat(serverEvents.messages).hasSize(1);
            // the connection survives the attack
            p.send(0, "still fine".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.messages.size() == 2);
        }
    }

    @Test
    void packetsOfAnEarlierConnectionOfTheSameAddressAreRejected() throws Exception {
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), serverEvents);
             UdpProxy proxy = new UdpProxy(target(server));
             ReliableUdpNode client = ReliableUdpNode.start(loopback().build(), new RecordingListener())) {
            Peer first = client.connect(proxy.address()).get(5, TimeUnit.SECONDS);
            first.send(0, "one".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
            byte[] old = proxy.fromClient.stream().filter(d -> d[0] == WireForTests.PAYLOAD).findFirst().orElseThrow();
            first.disconnect();
            await().atMost(Duration.ofSeconds(5)).until(() -> server.peers().isEmpty());
            Peer second = client.connect(proxy.address()).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> server.peers().size() == 1);
            proxy.inject(old);
            await().atMost(Duration.ofSeconds(5)).until(() -> dropped(server, "stale_connection") >= 1);
            assertThat(serverEvents.texts(0)).containsExactly("one");
            second.send(0, "two".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.texts(0).size() == 2);
        }
    }

    @Test
    void garbageTruncatedAndOversizedDatagramsAreCountedAndHarmless() throws Exception {
        RecordingListener serverEvents = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), serverEvents);
             DatagramChannel attacker = DatagramChannel.open()) {
            attacker.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Random random = new Random(42);
            for (int i = 0; i < 500; i++) {
                byte[] junk = new byte[random.nextInt(300)];
                random.nextBytes(junk);
                attacker.send(ByteBuffer.wrap(junk), target(server));
            }
            attacker.send(ByteBuffer.allocate(10_000), target(server)); // larger than the largest budget (8,952 bytes)
            attacker.send(ByteBuffer.allocate(0), target(server));
            attacker.send(ByteBuffer.wrap(new byte[] {WireForTests.REQUEST, 'R', 'U'}), target(server)); // truncated
            await().atMost(Duration.ofSeconds(5)).until(() -> server.stats().datagramsReceived() == 503);
            var dropped = server.stats().datagramsDropped();
            assertThat(dropped).containsEntry("too_large", 1L);
            assertThat(dropped.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(503);
            assertThat(server.peers()).isEmpty();
            try (ReliableUdpNode client = ReliableUdpNode.start(loopback().build(), new RecordingListener())) {
                client.connect(target(server)).get(5, TimeUnit.SECONDS).send(0, "ok".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aHandshakeFloodIsRateLimitedAndRealClientsStillConnect() throws Exception {
        try (DatagramNode server = DatagramNode.start(loopback().build(), new RecordingListener(), Sessions.DEFAULT);
             DatagramChannel attacker = DatagramChannel.open()) {
            server.handshakeBudget(20, 20); // small, so that the flood below exceeds it however slow this machine is
            attacker.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            byte[] request = WireForTests.request(server.config().protocolId());
            int flood = 200;
            for (int i = 0; i < flood; i++) {
                attacker.send(ByteBuffer.wrap(request), target(server));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> server.stats().datagramsReceived() == flood);
            assertThat(dropped(server, "rate_limited")).isGreaterThan(100);
            try (ReliableUdpNode client = ReliableUdpNode.start(loopback().build(), new RecordingListener())) {
                client.connect(target(server)).get(5, TimeUnit.SECONDS).send(0, "ok".getBytes(UTF_8)).get(5, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void unverifiedSendersNeverGetMoreBytesThanTheySent() throws Exception {
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().maxConnections(1).build(), new RecordingListener());
             DatagramChannel attacker = DatagramChannel.open()) {
            attacker.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            attacker.configureBlocking(false);
            long sent = 0;
            long received = 0;
            ByteBuffer in = ByteBuffer.allocate(65_536);
            Random random = new Random(7);
            for (int i = 0; i < 400; i++) {
                byte[] d;
                switch (i % 4) {
                    case 0 -> { // a valid request: answered with a challenge
                        d = WireForTests.request(server.config().protocolId());
                    }
                    case 1 -> { // a request of another version: denied
                        d = new byte[40];
                        d[0] = WireForTests.REQUEST;
                        d[1] = 'R'; d[2] = 'U'; d[3] = 'D'; d[4] = 'P';
                        d[5] = 99;
                    }
                    case 2 -> { // a response with a forged cookie
                        d = new byte[WireForTests.RESPONSE_SIZE];
                        random.nextBytes(d);
                        d[0] = WireForTests.RESPONSE;
                        d[1] = 'R'; d[2] = 'U'; d[3] = 'D'; d[4] = 'P';
                        d[5] = WireForTests.VERSION;
                        long pid = server.config().protocolId();
                        for (int b = 0; b < 8; b++) {
                            d[6 + b] = (byte) (pid >>> (56 - 8 * b));
                        }
                        d[14] = 0;
                    }
                    default -> { // frames for a connection that does not exist
                        d = new byte[1 + random.nextInt(100)];
                        random.nextBytes(d);
                        d[0] = (byte) (WireForTests.KEEPALIVE + random.nextInt(3));
                    }
                }
                sent += attacker.send(ByteBuffer.wrap(d), target(server));
                in.clear();
                while (attacker.receive(in) != null) {
                    received += in.position();
                    in.clear();
                }
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> server.stats().datagramsReceived() == 400);
            Thread.sleep(200);
            in.clear();
            while (attacker.receive(in) != null) {
                received += in.position();
                in.clear();
            }
            assertThat(received).as("bytes answered").isPositive();
            double ratio = (double) received / sent;
            assertThat(ratio).as("bytes out / bytes in for unverified senders").isLessThanOrEqualTo(1.0);
            assertThat(server.stats().bytesSent()).isLessThanOrEqualTo(server.stats().bytesReceived());
            assertThat(server.peers()).isEmpty();
            assertThat(server.stats().handshakeFailures()).containsKeys("bad_cookie", "wrong_protocol");
            System.out.printf("amplification: %d bytes in, %d bytes out, ratio %.3f%n", sent, received, ratio);
        }
    }
}
