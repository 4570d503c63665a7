package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Connection migration on the in-memory network (docs/connection.md, "Migration"): a client behind a
 * simulated NAT whose outer address changes mid-stream keeps its connection, the server validates the
 * new path before it trusts it, sends no more than three times what it received there until then, goes
 * back when the new address does not answer, and moves nothing for a copied or forged datagram from a
 * third address; plain mode does not migrate; two connections between one pair of addresses live side
 * by side.
 */
class MigrationTest {

    private static final byte[] KEY = new byte[32];

    static {
        Arrays.fill(KEY, (byte) 7);
    }

    private static NodeConfig.Builder encrypted() {
        return NodeConfig.builder().preSharedKey(KEY);
    }

    /** Records migrations beside everything {@link RecordingListener} records. */
    static final class Listener implements NodeListener {
        final RecordingListener base = new RecordingListener();
        final List<InetSocketAddress[]> migrations = new CopyOnWriteArrayList<>();

        @Override
        public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
            base.onMessage(peer, channel, messageId, payload);
        }

        @Override
        public void onConnected(Peer peer) {
            base.onConnected(peer);
        }

        @Override
        public void onDisconnected(Peer peer, io.reliableudp.DisconnectReason reason) {
            base.onDisconnected(peer, reason);
        }

        @Override
        public void onPeerMigrated(Peer peer, InetSocketAddress from, InetSocketAddress to) {
            migrations.add(new InetSocketAddress[] {from, to});
        }
    }

    /**
     * A client's port behind a simulated NAT: the node sends and receives through an outer port of the
     * in-memory network, which {@link #rebind} replaces (the old mapping is dead: what reaches it is
     * discarded). {@link #oneWay} keeps the new mapping from delivering anything to the node. Records
     * the datagrams the node sent.
     */
    static final class NatPort implements DatagramPort {
        private final InMemoryNetwork network;
        private final InetSocketAddress inner;
        private volatile DatagramPort outer;
        private final List<DatagramPort> dead = new CopyOnWriteArrayList<>();
        volatile boolean oneWay;
        final List<byte[]> sent = new CopyOnWriteArrayList<>();
        /** Bytes the outer port received (from the server) and sent, since the last rebind. */
        final AtomicLong bytesIn = new AtomicLong();
        final AtomicLong bytesOut = new AtomicLong();

        NatPort(InMemoryNetwork network) throws IOException {
            this.network = network;
            this.outer = network.open();
            this.inner = new InetSocketAddress("10.0.0.2", 5000);
        }

        InetSocketAddress outerAddress() {
            return outer.localAddress();
        }

        void rebind(boolean oneWayAfter) throws IOException {
            DatagramPort old = outer;
            bytesIn.set(0);
            bytesOut.set(0);
            oneWay = oneWayAfter;
            outer = network.open();
            dead.add(old);
            old.wakeup();
        }

        @Override
        public @Nullable InetSocketAddress receive(ByteBuffer into) throws IOException {
            ByteBuffer scratch = ByteBuffer.allocate(into.capacity());
            for (DatagramPort d : dead) {
                while (d.receive(scratch.clear()) != null) {
                    // the old mapping is gone: nothing reaches the client through it
                }
            }
            if (oneWay) {
                while (outer.receive(scratch.clear()) != null) {
                    bytesIn.addAndGet(scratch.position());
                }
                return null;
            }
            int before = into.position();
            InetSocketAddress from = outer.receive(into);
            if (from != null) {
                bytesIn.addAndGet(into.position() - before);
            }
            return from;
        }

        @Override
        public boolean send(ByteBuffer datagram, InetSocketAddress to) throws IOException {
            byte[] copy = new byte[datagram.remaining()];
            datagram.duplicate().get(copy);
            sent.add(copy);
            bytesOut.addAndGet(copy.length);
            return outer.send(datagram, to);
        }

        @Override
        public void awaitReadable(long timeoutNanos) throws IOException {
            outer.awaitReadable(Math.min(timeoutNanos, TimeUnit.MILLISECONDS.toNanos(2)));
        }

        @Override
        public void wakeup() {
            outer.wakeup();
        }

        @Override
        public InetSocketAddress localAddress() {
            return inner;
        }

        @Override
        public boolean isOpen() {
            return outer.isOpen();
        }

        @Override
        public void close() {
            outer.close();
            dead.forEach(DatagramPort::close);
        }
    }

    private static byte[] text(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> texts(RecordingListener l) {
        return l.texts(0);
    }

    private static List<String> expected(String prefix, int n) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(prefix + i);
        }
        return out;
    }

    @Test
    void aRebindingClientKeepsItsConnectionAndLosesNothing() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        Listener serverEvents = new Listener();
        Listener clientEvents = new Listener();
        NatPort nat = new NatPort(network);
        try (DatagramNode server = DatagramNode.start(encrypted().build(), serverEvents, Sessions.DEFAULT, network.open());
             DatagramNode client = DatagramNode.start(encrypted().build(), clientEvents, Sessions.DEFAULT, nat)) {
            Peer toServer = client.connect(server.localAddress()).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> server.peers().size() == 1);
            Peer toClient = server.peers().iterator().next();
            InetSocketAddress first = nat.outerAddress();
            assertThat(toClient.address()).isEqualTo(first);
            for (int i = 0; i < 100; i++) {
                toServer.send(0, text("up" + i));
                toClient.send(0, text("down" + i));
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> texts(serverEvents.base).size() == 100
                    && texts(clientEvents.base).size() == 100);

            nat.rebind(false);
            InetSocketAddress second = nat.outerAddress();
            for (int i = 100; i < 200; i++) {
                toServer.send(0, text("up" + i));
                toClient.send(0, text("down" + i));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> texts(serverEvents.base).size() == 200
                    && texts(clientEvents.base).size() == 200);
            await().atMost(Duration.ofSeconds(5)).until(() -> server.stats().migrations() == 1);

            assertThat(texts(serverEvents.base)).as("every message once, in order").isEqualTo(expected("up", 200));
            assertThat(texts(clientEvents.base)).isEqualTo(expected("down", 200));
            assertThat(toClient.address()).isEqualTo(second);
            assertThat(server.peers()).hasSize(1);
            assertThat(serverEvents.migrations).hasSize(1);
            assertThat(serverEvents.migrations.getFirst()).containsExactly(first, second);
            assertThat(server.stats().pathValidationsFailed()).isZero();
            assertThat(server.stats().connectionsOpened()).as("no new handshake").isEqualTo(1);

            // a copy of a real datagram, and a forged one, from a third address: replayed, decrypt_failed, nothing moves
            DatagramPort third = network.open();
            double movedAt = ((PeerHandle) toClient).driver().movedAt();
            byte[] copy = nat.sent.getLast();
            third.send(ByteBuffer.wrap(copy), server.localAddress());
            byte[] forged = copy.clone();
            Arrays.fill(forged, 5, 13, (byte) 0x7f); // a sequence far ahead
            third.send(ByteBuffer.wrap(forged), server.localAddress());
            await().atMost(Duration.ofSeconds(5)).until(() -> server.stats().datagramsDropped().getOrDefault("replayed", 0L) >= 1
                    && server.stats().datagramsDropped().getOrDefault("decrypt_failed", 0L) >= 1);
            toServer.send(0, text("after"));
            await().atMost(Duration.ofSeconds(5)).until(() -> texts(serverEvents.base).size() == 201);
            assertThat(toClient.address()).isEqualTo(second);
            assertThat(((PeerHandle) toClient).driver().movedAt()).as("not even moved for a moment").isEqualTo(movedAt);
            assertThat(server.stats().migrations()).isEqualTo(1);
            third.close();
        }
    }

    @Test
    void aNewAddressThatDoesNotAnswerIsLimitedAndGivenUp() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        Listener serverEvents = new Listener();
        NatPort nat = new NatPort(network);
        DatagramNode client = DatagramNode.start(encrypted().build(), new Listener(), Sessions.DEFAULT, nat);
        try (DatagramNode server = DatagramNode.start(encrypted().build(), serverEvents, Sessions.DEFAULT, network.open())) {
            Peer toServer = client.connect(server.localAddress()).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> server.peers().size() == 1);
            Peer toClient = server.peers().iterator().next();
            InetSocketAddress first = nat.outerAddress();

            // the new mapping carries the client's datagrams to the server, nothing back
            nat.rebind(true);
            InetSocketAddress second = nat.outerAddress();
            toServer.send(0, text("moved"));
            await().atMost(Duration.ofSeconds(5)).until(() -> toClient.address().equals(second));
            byte[] big = new byte[1000];
            for (int i = 0; i < 50; i++) {
                toClient.send(0, big); // far more than three times what the client sends
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> server.counters().amplificationLimited.sum() > 0);
            assertThat(nat.bytesIn.get()).as("bytes to the unvalidated address <= 3 x bytes from it")
                    .isLessThanOrEqualTo(3 * nat.bytesOut.get());

            client.abort(); // the client goes silent: the challenge stays unanswered
            await().atMost(Duration.ofSeconds(5)).until(() -> server.stats().pathValidationsFailed() == 1);
            assertThat(toClient.address()).as("back to the validated address").isEqualTo(first);
            assertThat(server.stats().migrations()).isZero();
            assertThat(serverEvents.migrations).isEmpty();
        } finally {
            client.close();
        }
    }

    @Test
    void plainModeDoesNotMigrate() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        Listener serverEvents = new Listener();
        NatPort nat = new NatPort(network);
        try (DatagramNode server = DatagramNode.start(NodeConfig.builder().build(), serverEvents, Sessions.DEFAULT, network.open());
             DatagramNode client = DatagramNode.start(NodeConfig.builder().build(), new Listener(), Sessions.DEFAULT, nat)) {
            Peer toServer = client.connect(server.localAddress()).get(5, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(5)).until(() -> server.peers().size() == 1);
            Peer toClient = server.peers().iterator().next();
            InetSocketAddress first = nat.outerAddress();
            nat.rebind(false);
            toServer.send(0, text("from elsewhere"));
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> server.stats().datagramsDropped().getOrDefault("unknown_sender", 0L) > 0);
            assertThat(toClient.address()).isEqualTo(first);
            assertThat(texts(serverEvents.base)).isEmpty();
            assertThat(server.stats().migrations()).isZero();
        }
    }

    @Test
    void twoConnectionsBetweenOnePairOfAddresses() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        for (boolean withKey : new boolean[] {false, true}) {
            Listener serverEvents = new Listener();
            Listener clientEvents = new Listener();
            NodeConfig.Builder config = withKey ? encrypted() : NodeConfig.builder();
            try (DatagramNode server = DatagramNode.start(config.build(), serverEvents, Sessions.DEFAULT, network.open());
                 DatagramNode client = DatagramNode.start(config.build(), clientEvents, Sessions.DEFAULT, network.open())) {
                Peer a = client.connect(server.localAddress()).get(5, TimeUnit.SECONDS);
                Peer b = client.connectAnother(server.localAddress()).get(5, TimeUnit.SECONDS);
                assertThat(b).isNotSameAs(a);
                assertThat(client.connect(server.localAddress()).get(5, TimeUnit.SECONDS)).as("connect: the one there is").isSameAs(a);
                await().atMost(Duration.ofSeconds(5)).until(() -> server.peers().size() == 2);
                for (int i = 0; i < 50; i++) {
                    a.send(0, text("a" + i));
                    b.send(0, text("b" + i));
                }
                await().atMost(Duration.ofSeconds(5)).until(() -> serverEvents.base.messages.size() == 100);
                List<Peer> servers = List.copyOf(server.peers());
                for (Peer p : servers) {
                    List<String> got = serverEvents.base.messages.stream().filter(m -> m.peer() == p).map(RecordingListener.Received::text).toList();
                    assertThat(got).as("one connection's messages, in order").satisfiesAnyOf(
                            l -> assertThat(l).isEqualTo(expected("a", 50)), l -> assertThat(l).isEqualTo(expected("b", 50)));
                    p.send(0, text("to " + got.getFirst().charAt(0)));
                }
                await().atMost(Duration.ofSeconds(5)).until(() -> clientEvents.base.messages.size() == 2);
                for (RecordingListener.Received m : clientEvents.base.messages) {
                    assertThat(m.text()).isEqualTo(m.peer() == a ? "to a" : "to b");
                }
                assertThat(server.stats().datagramsDropped()).doesNotContainKeys("stale_connection", "unexpected");
                assertThat(serverEvents.base.disconnected).as("the second is not a restart of the first").isEmpty();
            }
        }
    }
}
