package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.connection.WireForTests;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Old datagrams of a live connection, plain or encrypted, recorded on the path and sent again much
 * later from the peers' own addresses, must not stall or move the connection: a proxy between two nodes records
 * 3,000 datagrams each way while both ends send, lets the connection run on until the packet layer's
 * 16-bit sequence has gone more than half way round (so every recorded packet sequence looks newer
 * than the live ones to the packet layer), then sends the recording again ten times each way while
 * the traffic goes on. The live messages keep being delivered, no send fails, no connection ends, and
 * the nodes count the old datagrams as dropped ("replayed").
 */
@Timeout(120)
class StaleDatagramReplayTest {

    private static final int RECORDED = 3_000;
    private static final int REPLAYS = 10;
    /**
     * Payload datagrams (packet sequences) each way after the recording before the replay: the recorded
     * sequences then lie between 36,000 and 39,000 behind the live ones, and at most about 44,000 by the
     * end of the replay (2,000 messages/s for 2.3 s more): every one more than 32,768 behind, so the
     * packet layer's 16-bit comparison takes each for newer than the live ones.
     */
    private static final int ADVANCE = 36_000;

    /** Counts messages; stores nothing (100,000 messages pass). */
    private static final class Counting implements NodeListener {
        final AtomicLong messages = new AtomicLong();
        final List<Peer> connected = new java.util.concurrent.CopyOnWriteArrayList<>();
        final List<String> disconnected = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
            messages.incrementAndGet();
        }

        @Override
        public void onConnected(Peer peer) {
            connected.add(peer);
        }

        @Override
        public void onDisconnected(Peer peer, io.reliableudp.DisconnectReason reason) {
            disconnected.add(reason.name());
        }
    }

    /**
     * Sends small messages on one peer at a settable rate (messages per millisecond), counting failures.
     * At most {@value #MAX_PENDING} of its sends are unfinished at once: a node that the machine's load
     * holds up for a moment (a stall of 300 ms was enough) gets fewer messages meanwhile, instead of a
     * channel queue past its 4,096 whose refusals (QUEUE_FULL) would count as failures of the connection.
     */
    private static final class Driver implements AutoCloseable {
        static final int MAX_PENDING = 2_048;
        private final Peer peer;
        private final Thread thread;
        private final Semaphore pending = new Semaphore(MAX_PENDING);
        volatile int perMillisecond;
        private volatile boolean running = true;
        final AtomicLong sent = new AtomicLong();
        final AtomicLong failed = new AtomicLong();

        Driver(Peer peer, String name) {
            this.peer = peer;
            this.thread = Thread.ofPlatform().daemon().name(name).start(this::run);
        }

        private void run() {
            byte[] payload = new byte[16];
            while (running) {
                int n = perMillisecond;
                for (int i = 0; i < n && running && pending.tryAcquire(); i++) {
                    sent.incrementAndGet();
                    peer.send(0, payload).whenComplete((d, e) -> {
                        pending.release();
                        if (e != null) {
                            failed.incrementAndGet();
                        }
                    });
                }
                LockSupport.parkNanos(1_000_000);
            }
        }

        /** Whether every send made so far has ended (acknowledged or failed). */
        boolean settled() {
            return pending.availablePermits() == MAX_PENDING;
        }

        @Override
        public void close() throws InterruptedException {
            running = false;
            thread.join(2_000);
        }
    }

    /**
     * Forwards datagrams between one client and a server on loopback, records the first datagrams
     * each way while asked to, counts the payload frames each way, and sends recorded datagrams again
     * from its own address (to the server, the client's address; to the client, the server's).
     */
    private static final class ReplayProxy implements AutoCloseable {
        private final DatagramChannel channel;
        private final InetSocketAddress server;
        private volatile SocketAddress client;
        volatile boolean recording;
        final List<byte[]> toServer = new ArrayList<>();
        final List<byte[]> toClient = new ArrayList<>();
        final AtomicLong payloadsToServer = new AtomicLong();
        final AtomicLong payloadsToClient = new AtomicLong();
        private final Thread thread;

        ReplayProxy(InetSocketAddress server) throws IOException {
            this.server = server;
            this.channel = DatagramChannel.open();
            channel.setOption(java.net.StandardSocketOptions.SO_RCVBUF, 4 << 20);
            channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            this.thread = Thread.ofPlatform().daemon().name("replay-proxy").start(this::run);
        }

        InetSocketAddress address() throws IOException {
            return (InetSocketAddress) channel.getLocalAddress();
        }

        private void run() {
            ByteBuffer buf = ByteBuffer.allocateDirect(65_536);
            try {
                while (channel.isOpen()) {
                    buf.clear();
                    SocketAddress from = channel.receive(buf);
                    buf.flip();
                    boolean payload = buf.remaining() > 0 && buf.get(0) == WireForTests.PAYLOAD;
                    if (from.equals(server)) {
                        SocketAddress c = client;
                        if (c == null) {
                            continue;
                        }
                        record(toClient, buf);
                        if (payload) {
                            payloadsToClient.incrementAndGet();
                        }
                        channel.send(buf, c);
                    } else {
                        client = from;
                        record(toServer, buf);
                        if (payload) {
                            payloadsToServer.incrementAndGet();
                        }
                        channel.send(buf, server);
                    }
                }
            } catch (IOException e) {
                // closed
            }
        }

        private void record(List<byte[]> list, ByteBuffer buf) {
            if (recording) {
                synchronized (list) {
                    if (list.size() < RECORDED) {
                        byte[] copy = new byte[buf.remaining()];
                        buf.get(buf.position(), copy);
                        list.add(copy);
                    }
                }
            }
        }

        boolean recorded() {
            synchronized (toServer) {
                synchronized (toClient) {
                    return toServer.size() >= RECORDED && toClient.size() >= RECORDED;
                }
            }
        }

        void replay(byte[] datagram, boolean towardsServer) throws IOException {
            SocketAddress to = towardsServer ? server : client;
            channel.send(ByteBuffer.wrap(datagram), to);
        }

        @Override
        public void close() throws Exception {
            channel.close();
            thread.join(2_000);
        }
    }

    private static long dropped(ReliableUdpNode node, String reason) {
        return node.stats().datagramsDropped().getOrDefault(reason, 0L);
    }

    @ParameterizedTest(name = "encrypted={0}")
    @ValueSource(booleans = {false, true})
    void oldDatagramsSentAgainLongAfterDoNotStallALiveConnection(boolean encrypted) throws Exception {
        Counting serverEvents = new Counting();
        Counting clientEvents = new Counting();
        byte[] key = null;
        if (encrypted) {
            key = new byte[32];
            new java.security.SecureRandom().nextBytes(key);
        }
        NodeConfig serverConfig = loopback().preSharedKey(key).timeout(Duration.ofSeconds(2))
                .socketReceiveBufferSize(4 << 20).build();
        NodeConfig clientConfig = loopback().preSharedKey(key).acceptIncoming(false).timeout(Duration.ofSeconds(2))
                .socketReceiveBufferSize(4 << 20).build();
        try (ReliableUdpNode server = ReliableUdpNode.start(serverConfig, serverEvents);
             ReplayProxy proxy = new ReplayProxy(target(server));
             ReliableUdpNode client = ReliableUdpNode.start(clientConfig, clientEvents)) {
            Peer toServer = client.connect(proxy.address()).get(5, TimeUnit.SECONDS);
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (serverEvents.connected.isEmpty() && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            assertThat(serverEvents.connected).hasSize(1);
            Peer toClient = serverEvents.connected.get(0);

            try (Driver up = new Driver(toServer, "to-server"); Driver down = new Driver(toClient, "to-client")) {
                // 1. record 3,000 datagrams each way of a connection carrying 2,000 messages/s each way
                up.perMillisecond = 2;
                down.perMillisecond = 2;
                proxy.recording = true;
                waitFor("the recording", 60, proxy::recorded);
                proxy.recording = false;

                // 2. the connection runs on (faster, so the test is short) until its packet sequences
                //    have gone 36,000 further each way: the recorded ones now look newer than the live ones
                long upStart = proxy.payloadsToServer.get();
                long downStart = proxy.payloadsToClient.get();
                up.perMillisecond = 20;
                down.perMillisecond = 20;
                waitFor("the sequences to advance", 60, () -> {
                    if (proxy.payloadsToServer.get() - upStart >= ADVANCE) {
                        up.perMillisecond = 0;
                    }
                    if (proxy.payloadsToClient.get() - downStart >= ADVANCE) {
                        down.perMillisecond = 0;
                    }
                    return up.perMillisecond == 0 && down.perMillisecond == 0;
                });

                // 3. live traffic at 2,000 messages/s each way while the recording goes in ten times each way in 2 s
                up.perMillisecond = 2;
                down.perMillisecond = 2;
                Thread.sleep(300);
                long serverBefore = serverEvents.messages.get();
                long clientBefore = clientEvents.messages.get();
                long upSentBefore = up.sent.get();
                long downSentBefore = down.sent.get();
                for (int round = 0; round < REPLAYS; round++) {
                    long roundEnd = System.nanoTime() + 200_000_000L;
                    for (int i = 0; i < RECORDED; i++) {
                        proxy.replay(proxy.toServer.get(i), true);
                        proxy.replay(proxy.toClient.get(i), false);
                        if (i % 100 == 99) {
                            LockSupport.parkNanos(1_000_000);
                        }
                    }
                    LockSupport.parkNanos(Math.max(0, roundEnd - System.nanoTime()));
                }
                long serverDuring = serverEvents.messages.get() - serverBefore;
                long clientDuring = clientEvents.messages.get() - clientBefore;
                long upSentDuring = up.sent.get() - upSentBefore;
                long downSentDuring = down.sent.get() - downSentBefore;

                // 4. and on past the timeout, which a stalled connection would not survive; then every
                //    message sent arrives (how many arrive while the replay lasts depends on the machine's load)
                Thread.sleep(3_000);
                up.perMillisecond = 0;
                down.perMillisecond = 0;
                boolean allEnded = within(60, () -> up.settled() && down.settled()
                        && serverEvents.messages.get() >= up.sent.get() - up.failed.get()
                        && clientEvents.messages.get() >= down.sent.get() - down.failed.get());

                String report = "server received " + serverDuring + " of " + upSentDuring + " sent during the replay, client "
                        + clientDuring + " of " + downSentDuring + "; disconnects server " + serverEvents.disconnected
                        + " client " + clientEvents.disconnected + "; failed sends up " + up.failed + " down " + down.failed
                        + "; server drops " + server.stats().datagramsDropped() + "; client drops "
                        + client.stats().datagramsDropped();
                assertThat(allEnded).as("every send ended: " + report).isTrue();
                assertThat(serverEvents.disconnected).as(report).isEmpty();
                assertThat(clientEvents.disconnected).as(report).isEmpty();
                assertThat(up.failed.get() + down.failed.get()).as(report).isZero();
                // the live traffic went on during the replay, and none of it was lost
                assertThat(serverDuring).as(report).isPositive();
                assertThat(clientDuring).as(report).isPositive();
                assertThat(serverEvents.messages.get()).as(report).isEqualTo(up.sent.get());
                assertThat(clientEvents.messages.get()).as(report).isEqualTo(down.sent.get());
                // and the old datagrams were recognised and counted (nearly all of them; some may be lost on loopback)
                assertThat(dropped(server, "replayed")).as(report).isGreaterThan(REPLAYS * RECORDED / 2);
                assertThat(dropped(client, "replayed")).as(report).isGreaterThan(REPLAYS * RECORDED / 2);
                System.out.println(report);
            }
        }
    }

    private static void waitFor(String what, int seconds, java.util.function.BooleanSupplier condition) throws InterruptedException {
        if (!within(seconds, condition)) {
            throw new AssertionError("gave up waiting for " + what);
        }
    }

    /** Whether {@code condition} held within {@code seconds}. */
    private static boolean within(int seconds, java.util.function.BooleanSupplier condition) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > until) {
                return false;
            }
            Thread.sleep(5);
        }
        return true;
    }
}
