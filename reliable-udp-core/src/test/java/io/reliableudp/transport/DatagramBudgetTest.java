package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.message.MessageConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The datagram budget a connection grows to, over real UDP on loopback: a sender whose packets fill
 * up probes the larger size once, the peer's answer lets it grow, and later packets carry many more
 * messages each; a stream of lone events never probes; a peer that does not accept the size leaves
 * the budget where it was and loses nothing. Counts of datagrams and bytes, no timings.
 */
class DatagramBudgetTest {

    private static final int BASE = MessageConfig.defaults().datagramBudget();
    private static final int GROWN = MessageConfig.DEFAULT_MAX_DATAGRAM_BUDGET;
    private static final int SIZE = 256;
    private static final int BURST = 2_000;

    @ParameterizedTest(name = "encrypted={0}")
    @ValueSource(booleans = {false, true})
    void aBulkSenderOnLoopbackGrowsItsDatagramsAfterOneSizeProbeAndPacksManyMoreMessagesInEach(boolean encrypted)
            throws Exception {
        byte[] key = new byte[32];
        key[0] = 7;
        ConcurrentLinkedQueue<byte[]> received = new ConcurrentLinkedQueue<>();
        AtomicLong wrong = new AtomicLong();
        NodeConfig.Builder server = loopback();
        NodeConfig.Builder client = loopback().acceptIncoming(false);
        if (encrypted) {
            server.preSharedKey(key);
            client.preSharedKey(key);
        }
        try (ReliableUdpNode s = ReliableUdpNode.start(server.build(), (p, c, id, d) -> {
                if (!intact(d)) {
                    wrong.incrementAndGet();
                }
                received.add(d);
            });
             // each burst is sent from the client's listener, on its I/O thread, when the server asks: the
             // whole burst is queued before the loop composes it, so how it packs does not depend on how
             // fast a test thread queues against the loop on a loaded machine
             ReliableUdpNode c = ReliableUdpNode.start(client.build(), (p, ch, id, d) -> burst(p, d[0] * BURST))) {
            Peer peer = c.connect(target(s)).get(5, TimeUnit.SECONDS);
            assertThat(peer.stats().datagramBudget()).isEqualTo(BASE);
            await().atMost(Duration.ofSeconds(5)).until(() -> !s.peers().isEmpty());
            Peer back = s.peers().iterator().next();

            back.send(0, new byte[] {0}); // the first burst fills packets: the first full one sends the size probe
            await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == BURST);
            await().atMost(Duration.ofSeconds(5)).until(() -> peer.stats().datagramBudget() == GROWN);

            long before = c.stats().datagramsSent();
            back.send(0, new byte[] {1});
            await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 2 * BURST);
            long datagrams = c.stats().datagramsSent() - before;
            // 4 messages of 256 bytes fit a 1,200-byte datagram, 34 an 8,952-byte one: at the base budget
            // the burst would take at least 500 datagrams
            assertThat(datagrams).as("datagrams for %d messages of %d bytes after the growth", BURST, SIZE)
                    .isLessThan(BURST / 10);
            assertThat(wrong.get()).isZero();
            // the receiving side only acknowledges (and asks twice): its packets never filled up, so it kept the base
            assertThat(back.stats().datagramBudget()).isEqualTo(BASE);
            assertThat(s.stats().datagramsDropped().getOrDefault("too_large", 0L)).isZero();
        }
    }

    @Test
    void aStreamOfLoneEventsNeverProbes() throws Exception {
        try (ReliableUdpNode s = ReliableUdpNode.start(loopback().build(), (p, c, id, d) -> { });
             ReliableUdpNode c = ReliableUdpNode.start(loopback().acceptIncoming(false).build(), (p, ch, id, d) -> { })) {
            Peer peer = c.connect(target(s)).get(5, TimeUnit.SECONDS);
            long before = c.stats().bytesSent();
            for (int i = 0; i < 50; i++) {
                peer.send(0, payload(i, 64)).get(5, TimeUnit.SECONDS);
            }
            // every packet held everything queued: no packet was full, so no size probe (8,952 bytes) went
            assertThat(c.stats().bytesSent() - before).isLessThan(50 * 200);
            assertThat(peer.stats().datagramBudget()).isEqualTo(BASE);
        }
    }

    @Test
    void aPeerThatDoesNotAcceptTheSizeLeavesTheBudgetAndLosesNothing() throws Exception {
        ConcurrentLinkedQueue<byte[]> received = new ConcurrentLinkedQueue<>();
        // this server accepts datagrams of the base budget only: it drops the probes as too large
        NodeConfig small = loopback().message(MessageConfig.builder().maxDatagramBudget(BASE).build()).build();
        try (ReliableUdpNode s = ReliableUdpNode.start(small, (p, c, id, d) -> received.add(d));
             ReliableUdpNode c = ReliableUdpNode.start(loopback().acceptIncoming(false).build(),
                     (p, ch, id, d) -> burst(p, d[0] * BURST))) { // from the client's I/O thread, as above
            Peer peer = c.connect(target(s)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> !s.peers().isEmpty());
            Peer back = s.peers().iterator().next();
            back.send(0, new byte[] {0});
            await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == BURST);
            // each try of the probe is dropped and counted; after the last the client gives the size up
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> s.stats().datagramsDropped().getOrDefault("too_large", 0L) == 3L);
            back.send(0, new byte[] {1});
            await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 2 * BURST);
            Thread.sleep(1_500); // longer than a try's interval and a housekeeping turn: no fourth probe
            assertThat(s.stats().datagramsDropped().get("too_large")).isEqualTo(3L);
            assertThat(peer.stats().datagramBudget()).isEqualTo(BASE);
            assertThat(received).allMatch(DatagramBudgetTest::intact);
        }
    }

    @Test
    void peersGrowUpToWhatTheirPathMayCarryAndNeverAboveTheConfiguredLargestBudget() throws Exception {
        try (ReliableUdpNode n = ReliableUdpNode.start(loopback().build(), (p, c, id, d) -> { });
             ReliableUdpNode fixed = ReliableUdpNode.start(loopback().pathMtuDiscovery(false).build(), (p, c, id, d) -> { });
             ReliableUdpNode off = ReliableUdpNode.start(
                     loopback().message(MessageConfig.builder().maxDatagramBudget(0).build()).build(), (p, c, id, d) -> { });
             ReliableUdpNode big = ReliableUdpNode.start(
                     loopback().message(MessageConfig.builder().maxDatagramBudget(65_507).build()).build(), (p, c, id, d) -> { })) {
            DatagramNode node = (DatagramNode) n;
            assertThat(node.pathBudget(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 9))).isEqualTo(GROWN);
            assertThat(node.pathBudget(new InetSocketAddress(InetAddress.getByName("::1"), 9))).isEqualTo(GROWN);
            // off the host: the MTU of the interface the route leaves by, less the IPv4 and UDP headers
            InetSocketAddress away = new InetSocketAddress(InetAddress.getByName("192.0.2.1"), 9);
            int mtu = routeMtu(away);
            assertThat(node.pathBudget(away)).isEqualTo(mtu < 0 ? GROWN : Math.max(BASE, Math.min(GROWN, mtu - 28)));
            assertThat(((DatagramNode) fixed).pathBudget(away)).isEqualTo(BASE);
            assertThat(((DatagramNode) fixed).pathBudget(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 9)))
                    .isEqualTo(GROWN);
            assertThat(((DatagramNode) off).pathBudget(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 9)))
                    .isEqualTo(BASE);
            // the loopback device's MTU (65,536 here) less the IPv4 and UDP headers, within the largest budget
            int wide = ((DatagramNode) big).pathBudget(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 9));
            assertThat(wide).isBetween(GROWN, 65_507);
        }
    }

    /** The MTU of the interface a datagram to {@code remote} leaves by, or -1 (no route). */
    private static int routeMtu(InetSocketAddress remote) {
        try (java.nio.channels.DatagramChannel ch = java.nio.channels.DatagramChannel.open(java.net.StandardProtocolFamily.INET)) {
            ch.connect(remote);
            java.net.NetworkInterface nif = java.net.NetworkInterface.getByInetAddress(
                    ((InetSocketAddress) ch.getLocalAddress()).getAddress());
            return nif == null ? -1 : nif.getMTU();
        } catch (java.io.IOException e) {
            return -1;
        }
    }

    private static void burst(Peer peer, int first) {
        for (int i = first; i < first + BURST; i++) {
            peer.send(0, payload(i, SIZE));
        }
        peer.flush();
    }

    /** A message that names its index in its first 4 bytes and repeats its low byte after them. */
    private static byte[] payload(int i, int size) {
        byte[] p = new byte[size];
        p[0] = (byte) (i >>> 24);
        p[1] = (byte) (i >>> 16);
        p[2] = (byte) (i >>> 8);
        p[3] = (byte) i;
        for (int k = 4; k < size; k++) {
            p[k] = (byte) (i + k);
        }
        return p;
    }

    private static boolean intact(byte[] p) {
        if (p.length < 4) {
            return false;
        }
        int i = (p[0] & 0xFF) << 24 | (p[1] & 0xFF) << 16 | (p[2] & 0xFF) << 8 | (p[3] & 0xFF);
        for (int k = 4; k < p.length; k++) {
            if (p[k] != (byte) (i + k)) {
                return false;
            }
        }
        return true;
    }
}
