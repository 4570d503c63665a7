package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.message.MessageConfig;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The IMMEDIATE send mode over real UDP on loopback: a send on an idle connection leaves without a
 * tick of the sender's I/O loop (TICK: only a tick carries it), written by the sending thread itself
 * when the loop is waiting, without waking the loop (a lost message is still resent at its timer, the
 * loop's wake timer armed for it), and a burst of
 * sends from an application thread costs one wake-up of the loop and leaves packed. Causal checks (the sender's
 * tick counter, the port's wake-up counter), no timings.
 */
class ImmediateSendTest {

    /** A sender whose TICK-mode tick is one second; in IMMEDIATE its tick (keepalives) is 125 ms. */
    private static NodeConfig sender(MessageConfig.SendMode mode) throws Exception {
        return loopback().acceptIncoming(false).sendMode(mode).sendRateHz(1)
                .keepAliveInterval(Duration.ofSeconds(2)).timeout(Duration.ofSeconds(10)).build();
    }

    @Test
    void aSendOnAnIdleConnectionLeavesWithoutATickInImmediateMode() throws Exception {
        BlockingQueue<byte[]> arrived = new LinkedBlockingQueue<>();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), (p, c, id, d) -> arrived.add(d));
             DatagramNode client = DatagramNode.start(sender(MessageConfig.SendMode.IMMEDIATE), (p, c, id, d) -> { },
                     Sessions.DEFAULT)) {
            Peer peer = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            boolean withoutTick = false;
            // a tick may happen to run between a send and its arrival (1 in ~100 on a quiet machine): then try again
            for (int attempt = 0; attempt < 10 && !withoutTick; attempt++) {
                long ticks = client.ticks();
                peer.send(0, new byte[] {(byte) attempt});
                assertThat(arrived.poll(5, TimeUnit.SECONDS)).containsExactly((byte) attempt);
                withoutTick = client.ticks() == ticks;
            }
            assertThat(withoutTick).as("a message reached the peer while the sender's loop ran no tick").isTrue();
        }
    }

    @Test
    void aSendOnAnIdleConnectionIsWrittenByTheSendingThread() throws Exception {
        BlockingQueue<byte[]> arrived = new LinkedBlockingQueue<>();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), (p, c, id, d) -> arrived.add(d));
             DatagramNode client = DatagramNode.start(sender(MessageConfig.SendMode.IMMEDIATE), (p, c, id, d) -> { },
                     Sessions.DEFAULT)) {
            Peer peer = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            int written = 0;
            for (int attempt = 0; attempt < 20; attempt++) {
                Thread.sleep(20); // the loop goes back to its wait (the ack of the last one has come)
                long before = client.stats().datagramsSent();
                peer.send(0, new byte[] {(byte) attempt});
                // counted when the datagram went to the socket: already, if this thread wrote it
                if (client.stats().datagramsSent() > before) {
                    written++;
                }
                assertThat(arrived.poll(5, TimeUnit.SECONDS)).containsExactly((byte) attempt);
            }
            // the loop is in its wait nearly all the time here; a send that meets it in a turn (a tick, the
            // ack of the previous message) goes through it instead. Handing every send to the loop would give ~0.
            assertThat(written).as("sends written before send() returned, of 20").isGreaterThanOrEqualTo(10);
        }
    }

    @Test
    void aSendWrittenByTheSendingThreadOnACleanLinkWakesNoOtherThread() throws Exception {
        BlockingQueue<byte[]> arrived = new LinkedBlockingQueue<>();
        // the datagram budget stays at 1200 bytes: a loopback peer's budget may otherwise grow (after a size
        // probe, at a moment the test does not control) and pack the burst into a handful of large datagrams
        NodeConfig clientConfig = loopback().acceptIncoming(false)
                .message(MessageConfig.defaults().toBuilder().maxDatagramBudget(0).build()).build();
        CountingPort port = new CountingPort(UdpDatagramPort.open(clientConfig));
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), (p, c, id, d) -> arrived.add(d));
             DatagramNode client = DatagramNode.start(clientConfig, (p, c, id, d) -> { }, Sessions.DEFAULT, port)) {
            Peer peer = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            int written = 0;
            int wokeTheLoop = 0;
            for (int attempt = 0; attempt < 20; attempt++) {
                // the loop goes back to its wait (the ack of the last one has come); a stream: within 20 ms
                Thread.sleep(8);
                long before = client.stats().datagramsSent();
                long wakeups = port.wakeups.get();
                peer.send(0, new byte[] {(byte) attempt});
                if (client.stats().datagramsSent() > before) {
                    written++;
                    // a wake-up of the waiting loop would have reached the port before send() returned
                    if (port.wakeups.get() > wakeups) {
                        wokeTheLoop++;
                    }
                }
                assertThat(arrived.poll(5, TimeUnit.SECONDS)).containsExactly((byte) attempt);
            }
            assertThat(written).as("sends written before send() returned, of 20").isGreaterThanOrEqualTo(10);
            // the loop takes the message's resend timer over when the ack wakes it (the first write after
            // the connect may meet the connection not settled yet, and wake it)
            assertThat(wokeTheLoop).as("of those, sends that woke the sender's I/O thread").isLessThanOrEqualTo(1);
            // lone messages, long after the last write: the wake timer holds their resend, nobody is woken
            int loneWritten = 0;
            int loneWoke = 0;
            for (int attempt = 0; attempt < 10; attempt++) {
                Thread.sleep(60);
                long before = client.stats().datagramsSent();
                long wakeups = port.wakeups.get();
                peer.send(0, new byte[] {(byte) (100 + attempt)});
                if (client.stats().datagramsSent() > before) {
                    loneWritten++;
                    if (port.wakeups.get() > wakeups) {
                        loneWoke++;
                    }
                }
                assertThat(arrived.poll(5, TimeUnit.SECONDS)).containsExactly((byte) (100 + attempt));
            }
            assertThat(loneWritten).as("lone sends written before send() returned, of 10").isGreaterThanOrEqualTo(5);
            assertThat(loneWoke).as("of those, lone sends that woke the sender's I/O thread").isZero();
            // a loop that never took a quiet write's timer over would resend every one of the 30; an ack
            // that a loaded machine holds past a lone message's short resend interval (about 1.2 ms on
            // loopback since the prompt acks) may cost one spurious resend
            assertThat(peer.stats().channels().get(0).messagesResent()).as("resends on a clean link").isLessThanOrEqualTo(2);
        }
    }

    @Test
    void aLostLoneMessageThatTheSendingThreadWroteIsResentAtItsTimerWithoutATick() throws Exception {
        BlockingQueue<byte[]> arrived = new LinkedBlockingQueue<>();
        NodeConfig clientConfig = loopback().acceptIncoming(false).build();
        byte[] marker = new byte[64];
        Arrays.fill(marker, (byte) 0x5A);
        AtomicBoolean dropMarked = new AtomicBoolean();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), (p, c, id, d) -> arrived.add(d));
             UdpProxy proxy = new UdpProxy(target(server))) {
            // the first datagram that carries the marked message after it is armed is lost; its resends pass
            proxy.toServerRewrite = d -> contains(d, marker) && dropMarked.getAndSet(false) ? null : d;
            boolean lostWhileQuiet = false;
            boolean resentWithoutTick = false;
            // a fresh connection per attempt: its sending thread has to write the message while the loop
            // waits, which it nearly always does, and the loop's tick (125 ms) may happen to fall between
            // the loss and the resend (then try again)
            for (int attempt = 0; attempt < 5 && !resentWithoutTick; attempt++) {
                CountingPort port = new CountingPort(UdpDatagramPort.open(clientConfig));
                try (DatagramNode client = DatagramNode.start(clientConfig, (p, c, id, d) -> { }, Sessions.DEFAULT, port)) {
                    Peer peer = client.connect(proxy.address()).get(5, TimeUnit.SECONDS);
                    Thread.sleep(50);
                    peer.send(0, new byte[] {-1}); // a round trip measured, then the marked one alone, 60 ms later
                    assertThat(arrived.poll(5, TimeUnit.SECONDS)).containsExactly((byte) -1);
                    Thread.sleep(60);
                    long before = client.stats().datagramsSent();
                    long wakeups = port.wakeups.get();
                    long ticks = client.ticks();
                    dropMarked.set(true);
                    peer.send(0, marker);
                    boolean quiet = client.stats().datagramsSent() > before && port.wakeups.get() == wakeups;
                    // written by the loop, or with a wake-up: lost and resent all the same
                    assertThat(arrived.poll(5, TimeUnit.SECONDS)).as("the marked message, resent").isEqualTo(marker);
                    boolean noTick = client.ticks() == ticks;
                    assertThat(peer.stats().channels().get(0).messagesResent()).as("resends").isPositive();
                    if (!quiet) {
                        continue;
                    }
                    lostWhileQuiet = true;
                    // nothing else was sent and no tick ran: the wake timer gave the loop the turn that resent it
                    resentWithoutTick = noTick;
                }
            }
            assertThat(lostWhileQuiet).as("the marked message went out from the sending thread, waking nothing, and was lost").isTrue();
            assertThat(resentWithoutTick).as("a quiet lost message was resent before the loop's next tick").isTrue();
        }
    }

    private static boolean contains(byte[] data, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= data.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (data[i + j] != part[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    @Test
    void inTickModeOnlyATickCarriesASend() throws Exception {
        BlockingQueue<byte[]> arrived = new LinkedBlockingQueue<>();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), (p, c, id, d) -> arrived.add(d));
             DatagramNode client = DatagramNode.start(sender(MessageConfig.SendMode.TICK), (p, c, id, d) -> { },
                     Sessions.DEFAULT)) {
            Peer peer = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            for (int i = 0; i < 3; i++) {
                long ticks = client.ticks();
                peer.send(0, new byte[] {(byte) i});
                assertThat(arrived.poll(5, TimeUnit.SECONDS)).containsExactly((byte) i);
                assertThat(client.ticks()).as("send %d arrived after a tick of the sender", i).isGreaterThan(ticks);
            }
        }
    }

    @Test
    void aBurstOfSendsWakesTheLoopOnceAndLeavesPacked() throws Exception {
        AtomicInteger received = new AtomicInteger();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        // the datagram budget stays at 1200 bytes: a loopback peer's budget may otherwise grow (after a size
        // probe, at a moment the test does not control) and pack the burst into a handful of large datagrams
        NodeConfig clientConfig = loopback().acceptIncoming(false)
                .message(MessageConfig.defaults().toBuilder().maxDatagramBudget(0).build()).build();
        CountingPort port = new CountingPort(UdpDatagramPort.open(clientConfig));
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), (p, c, id, d) -> received.incrementAndGet());
             DatagramNode client = DatagramNode.start(clientConfig, (p, c, id, d) -> {
                 held.countDown(); // the client's I/O thread stays inside this turn until released
                 try {
                     release.await(10, TimeUnit.SECONDS);
                 } catch (InterruptedException e) {
                     Thread.currentThread().interrupt();
                 }
             }, Sessions.DEFAULT, port)) {
            Peer peer = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> server.peers().size() == 1);
            server.peers().iterator().next().send(0, new byte[] {1});
            assertThat(held.await(5, TimeUnit.SECONDS)).isTrue();
            long wakeups = port.wakeups.get();
            long packets = peer.stats().packetCounters().get("num_packets_sent");
            for (int i = 0; i < 1000; i++) {
                assertThat(peer.offer(0, new byte[32])).isTrue();
            }
            // the loop is inside a turn, not waiting: it sees the wake-up flag before its next wait, so the
            // burst costs no port wake-up at all (a waiting loop gets exactly one: IoLoopTest)
            assertThat(port.wakeups.get() - wakeups).as("port wake-ups for a burst of 1000 sends").isZero();
            release.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> received.get() == 1000);
            long sentPackets = peer.stats().packetCounters().get("num_packets_sent") - packets;
            // 36 messages of 32 bytes fit a 1200-byte datagram: 28 data packets, plus the ack-only packets
            // and, on a loaded machine, a timer resend or two (the count is the packet layer's, all packets);
            // unpacked it would be 1000
            assertThat(sentPackets).as("packets for 1000 messages of 32 bytes").isBetween(28L, 50L);
        }
    }
}
