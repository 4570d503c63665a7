package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.DisconnectReason;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link NodeConfig#ioThreads()} over real loopback sockets: a server with two I/O threads (two
 * sockets on one port, SO_REUSEPORT) serves many clients, every reliable message arrives and is
 * echoed, each peer is served by exactly one thread, the statistics add up, and close ends both
 * threads; a client node's connections take the threads in turn and stay there (the servers'
 * datagrams, which the kernel hashes onto any of the client's sockets, are handed to the peer's own
 * thread: order and thread hold); a port that cannot share its address runs one thread.
 */
@Timeout(180)
class IoThreadsTest {

    private static final int CLIENTS = 40;
    private static final int MESSAGES = 50;

    @Test
    void twoIoThreadsServeManyClientsEachPeerOnOneThread() throws Exception {
        Assumptions.assumeTrue(UdpDatagramPort.reusePortWorks(), "SO_REUSEPORT port sharing needs Linux");
        // which thread called the listener for which client, and what it received
        Map<InetSocketAddress, Set<String>> threadsByPeer = new ConcurrentHashMap<>();
        Map<InetSocketAddress, AtomicInteger> receivedByPeer = new ConcurrentHashMap<>();
        NodeListener echo = new NodeListener() {
            @Override
            public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
                threadsByPeer.computeIfAbsent(peer.address(), a -> ConcurrentHashMap.newKeySet()).add(Thread.currentThread().getName());
                receivedByPeer.computeIfAbsent(peer.address(), a -> new AtomicInteger()).incrementAndGet();
                peer.send(channel, payload); // the reply leaves by the socket of the peer's thread
            }
        };
        NodeConfig clientConfig = loopback().acceptIncoming(false).socketReceiveBufferSize(0).socketSendBufferSize(0)
                .receiveThreadMode(ReceiveThreadMode.VIRTUAL).build();
        List<ReliableUdpNode> clients = new ArrayList<>();
        List<RecordingListener> clientEvents = new ArrayList<>();
        DatagramNode server = DatagramNode.start(loopback().ioThreads(2).maxConnections(CLIENTS).build(), echo, Sessions.DEFAULT);
        int port = server.localAddress().getPort();
        try {
            assertThat(server.lanes()).hasSize(2);
            List<CompletableFuture<Peer>> connects = new ArrayList<>();
            for (int i = 0; i < CLIENTS; i++) {
                RecordingListener events = new RecordingListener();
                ReliableUdpNode c = ReliableUdpNode.start(clientConfig, events);
                clients.add(c);
                clientEvents.add(events);
                connects.add(c.connect(target(server)));
            }
            CompletableFuture.allOf(connects.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            List<CompletableFuture<Delivery>> sends = new ArrayList<>();
            for (int m = 0; m < MESSAGES; m++) {
                for (int i = 0; i < CLIENTS; i++) {
                    sends.add(connects.get(i).join().send(m % 2, ByteBuffer.allocate(8).putInt(i).putInt(m).array()));
                }
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    clientEvents.stream().allMatch(e -> e.messages.size() == MESSAGES));

            // every message arrived once, from its own client, and came back
            assertThat(receivedByPeer).hasSize(CLIENTS);
            assertThat(receivedByPeer.values()).allMatch(n -> n.get() == MESSAGES);
            for (int i = 0; i < CLIENTS; i++) {
                int client = i;
                assertThat(clientEvents.get(i).messages).allMatch(r -> ByteBuffer.wrap(r.payload()).getInt() == client);
            }
            // each peer served by exactly one thread, the one of its lane; both threads served some
            Set<String> used = ConcurrentHashMap.newKeySet();
            for (Peer p : server.peers()) {
                PeerHandle peer = (PeerHandle) p;
                String laneThread = "reliable-udp-io-" + port + (peer.lane().index == 0 ? "" : "-" + peer.lane().index);
                assertThat(threadsByPeer.get(peer.address())).as("threads of " + peer.address()).containsExactly(laneThread);
                used.add(laneThread);
            }
            // 40 clients all hashed to one of two sockets: probability 2^-39
            assertThat(used).hasSize(2);
            assertThat(server.counters().otherLane.sum()).as("datagrams read by another lane than their peer's").isZero();

            // the statistics add up: what the clients sent the server received, and the other way round
            long clientsSent = clients.stream().mapToLong(c -> c.stats().datagramsSent()).sum();
            long clientsReceived = clients.stream().mapToLong(c -> c.stats().datagramsReceived()).sum();
            await().atMost(Duration.ofSeconds(10)).until(() -> server.stats().datagramsReceived()
                    >= clients.stream().mapToLong(c -> c.stats().datagramsSent()).sum() - CLIENTS);
            NodeStats s = server.stats();
            assertThat(s.connections()).isEqualTo(CLIENTS);
            assertThat(s.connectionsOpened()).isEqualTo(CLIENTS);
            assertThat(s.handshakeFailures()).isEmpty();
            assertThat(s.datagramsDropped()).isEmpty();
            // loopback loses nothing; keepalives in flight at the snapshot may differ by a few
            assertThat(s.datagramsReceived()).isBetween(clientsSent - 2L * CLIENTS, clientsSent + 4L * CLIENTS);
            assertThat(s.datagramsSent()).isBetween(clientsReceived - 2L * CLIENTS, clientsReceived + 4L * CLIENTS);

            for (ReliableUdpNode c : clients) {
                c.close();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> server.peers().isEmpty());
        } finally {
            for (ReliableUdpNode c : clients) {
                c.close();
            }
            server.close();
        }
        // clean close: both I/O threads ended
        Set<String> names = Set.of("reliable-udp-io-" + port, "reliable-udp-io-" + port + "-1");
        await().atMost(Duration.ofSeconds(10)).until(() ->
                Thread.getAllStackTraces().keySet().stream().noneMatch(t -> names.contains(t.getName())));
        for (RecordingListener e : clientEvents) {
            // the clients closed first: no one was dropped by the server
            assertThat(e.disconnected).allMatch(d -> d.reason() == DisconnectReason.CLOSED_LOCALLY);
        }
    }

    @Test
    void connectionsThisNodeOpensTakeTheThreadsInTurnAndStayThere() throws Exception {
        Assumptions.assumeTrue(UdpDatagramPort.reusePortWorks(), "SO_REUSEPORT port sharing needs Linux");
        // the servers' datagrams reach the client's sockets by the kernel's hash, not by the lane a connect
        // picked: those read by another lane are handed to the peer's own, so its calls stay on one thread, in order
        Map<InetSocketAddress, List<Integer>> order = new ConcurrentHashMap<>();
        Map<InetSocketAddress, Set<String>> threads = new ConcurrentHashMap<>();
        NodeListener recording = (peer, channel, id, payload) -> {
            order.computeIfAbsent(peer.address(), a -> new java.util.concurrent.CopyOnWriteArrayList<>())
                    .add(ByteBuffer.wrap(payload).getInt());
            threads.computeIfAbsent(peer.address(), a -> ConcurrentHashMap.newKeySet()).add(Thread.currentThread().getName());
        };
        List<ReliableUdpNode> servers = new ArrayList<>();
        DatagramNode client = DatagramNode.start(loopback().ioThreads(3).acceptIncoming(false).build(), recording, Sessions.DEFAULT);
        int port = client.localAddress().getPort();
        int perServer = 200;
        try {
            List<PeerHandle> peers = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), new RecordingListener());
                servers.add(server);
                PeerHandle peer = (PeerHandle) client.connect(target(server)).get(10, TimeUnit.SECONDS);
                peers.add(peer);
                assertThat(peer.send(0, ByteBuffer.allocate(4).putInt(-1).array()).get(10, TimeUnit.SECONDS).acknowledged()).isTrue();
            }
            assertThat(peers.stream().map(p -> p.lane().index).toList()).containsExactly(0, 1, 2, 0, 1, 2);
            // each server streams numbered messages to the client on the reliable-ordered channel
            for (ReliableUdpNode server : servers) {
                await().atMost(Duration.ofSeconds(5)).until(() -> server.peers().size() == 1);
                Peer toClient = server.peers().iterator().next();
                for (int m = 0; m < perServer; m++) {
                    toClient.send(0, ByteBuffer.allocate(4).putInt(m).array());
                }
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> order.size() == servers.size()
                    && order.values().stream().allMatch(l -> l.size() == perServer));
            List<Integer> expected = java.util.stream.IntStream.range(0, perServer).boxed().toList();
            for (PeerHandle peer : peers) {
                assertThat(order.get(peer.address())).as("order from " + peer.address()).isEqualTo(expected);
                String laneThread = "reliable-udp-io-" + port + (peer.lane().index == 0 ? "" : "-" + peer.lane().index);
                assertThat(threads.get(peer.address())).as("threads of " + peer.address()).containsExactly(laneThread);
            }
            // six connections all hashed onto the lanes they were given: probability (1/3)^6; so the hand-over ran
            assertThat(client.counters().otherLane.sum()).as("datagrams read by another lane and handed over").isPositive();
        } finally {
            client.close();
            for (ReliableUdpNode s : servers) {
                s.close();
            }
        }
    }

    @Test
    void aPortThatCannotShareItsAddressRunsOneThread() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7000);
        DatagramNode node = DatagramNode.start(NodeConfig.builder().bindAddress(address).ioThreads(4).build(),
                new RecordingListener(), Sessions.DEFAULT, network.open(address));
        try {
            assertThat(node.lanes()).hasSize(1);
        } finally {
            node.close();
        }
        assertThat(node.isOpen()).isFalse();
    }

    @Test
    void aSocketOpenedWithoutReusePortRunsOneThread() throws Exception {
        UdpDatagramPort port = UdpDatagramPort.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0, 0, false);
        DatagramNode node = DatagramNode.start(loopback().ioThreads(2).build(), new RecordingListener(), Sessions.DEFAULT, port);
        try {
            assertThat(node.lanes()).hasSize(1);
            // and it works as a node
            try (ReliableUdpNode client = ReliableUdpNode.start(loopback().acceptIncoming(false).build(), new RecordingListener())) {
                Peer p = client.connect(target(node)).get(10, TimeUnit.SECONDS);
                assertThat(p.send(0, new byte[] {1}).get(10, TimeUnit.SECONDS).acknowledged()).isTrue();
                p.disconnect();
                assertThat(p.disconnectReason()).isIn(null, DisconnectReason.CLOSED_LOCALLY);
            }
        } finally {
            node.close();
        }
    }
}
