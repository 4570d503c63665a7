package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.connection.Connection;
import io.reliableudp.connection.ConnectionSettings;
import io.reliableudp.connection.MessageSession;
import io.reliableudp.message.MessageConfig;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The heap one idle accepted connection holds, measured (a heap reading after full GCs, not a timing):
 * N clients connect to a server node with the default configuration over the in-memory
 * network (each client a sans-I/O {@link Connection} on a port of its own, as the transport's client
 * side would be); each client is thrown away and its port closed as soon as it is connected, so what
 * the heap holds beyond the server's baseline at the end is the server's N connections: peer, connection, message and
 * packet layers, timers, the peer table. At most 64 KiB each (memory per idle connection), and all N
 * clients get in with the server's default {@code maxConnections} (none refused). The server's
 * connection timeout is raised so that the abandoned connections stay while the heap is read, and its
 * keepalive interval (100 ms by default: 50,000 datagrams a second to 5,000 vanished clients, which on
 * a loaded machine starved the handshakes of the last waves). The clients' connect timeout is the
 * test's own limit for connecting them all, not the default 5 s: a server held up for a few seconds
 * (a loaded machine) answers late, and a client that had given up meanwhile counted as refused while
 * the server held its connection. Nothing else of the server or the clients differs from the
 * defaults, and none of these settings changes what a connection holds. The clients start in waves of
 * {@value #WAVE}: on a loaded build machine the server's thread may get a tenth of a core, and this
 * test is about memory and admission, not speed (the {@code scale} benchmark connects them all at once
 * over real sockets and times it).
 */
@Timeout(600)
class IdleConnectionMemoryTest {

    /** Clients that start their handshakes together. */
    static final int WAVE = 250;

    /** How long the clients have to connect, together; also each client's connect timeout. */
    static final int CONNECT_LIMIT_SECONDS = 240;

    /** The budget per idle connection. */
    static final long BUDGET_BYTES = 64 * 1024;

    @ParameterizedTest(name = "{0} idle connections")
    @ValueSource(ints = {1000, 5000})
    void anIdleConnectionHoldsAtMost64KiBAndTheDefaultsAdmitThemAllAtOnce(int clients) throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        NodeConfig config = NodeConfig.builder().timeout(Duration.ofSeconds(600)).keepAliveInterval(Duration.ofSeconds(2)).build();
        RecordingListener events = new RecordingListener();
        try (ReliableUdpNode server = ReliableUdpNode.start(config, events, network.open())) {
            InetSocketAddress serverAddress = server.localAddress();
            long baseline = heapAfterGc();
            Clients c = new Clients(network, serverAddress, clients, CONNECT_LIMIT_SECONDS);
            double seconds = c.connectAll(CONNECT_LIMIT_SECONDS);
            String diagnosis = "server " + server.stats() + ", in-memory inbox overflows " + network.overflowed();
            assertThat(c.ended).as("clients whose connection ended, by reason (%s)", diagnosis).isEmpty();
            assertThat(c.connected).as("clients connected within %.1f s", seconds).isEqualTo(clients);
            long until = System.nanoTime() + 30_000_000_000L;
            while (server.peers().size() < clients && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            assertThat(server.peers()).hasSize(clients);
            c.close();
            c = null;
            long used = heapAfterGc();
            double perConnection = (used - baseline) / (double) clients;
            System.out.printf(Locale.ROOT, "IdleConnectionMemoryTest %d connections: %.0f bytes (%.1f KiB) of heap each"
                    + " after GC, all connected within %.2f s (in waves of %d)%n", clients, perConnection, perConnection / 1024, seconds, WAVE);
            assertThat(server.peers()).as("the server still holds every connection while the heap is read").hasSize(clients);
            assertThat(perConnection).as("heap per idle connection, bytes").isLessThanOrEqualTo(BUDGET_BYTES);
            assertThat(perConnection).as("the reading sees the connections at all").isGreaterThan(4096);
        }
    }

    /** Heap used after full collections, read until two readings agree within 64 KiB. */
    static long heapAfterGc() throws InterruptedException {
        var memory = ManagementFactory.getMemoryMXBean();
        long last = Long.MAX_VALUE;
        for (int i = 0; i < 8; i++) {
            System.gc();
            Thread.sleep(50);
            long used = memory.getHeapMemoryUsage().getUsed();
            if (Math.abs(last - used) < 64 * 1024) {
                return used;
            }
            last = used;
        }
        return last;
    }

    /** N client connections on N in-memory ports, driven by the test thread. */
    private static final class Clients {
        final List<DatagramPort> ports = new ArrayList<>();
        final List<Connection> connections = new ArrayList<>();
        final Map<DisconnectReason, Integer> ended = new EnumMap<>(DisconnectReason.class);
        final InetSocketAddress server;
        final long epoch = System.nanoTime();
        int connected;

        Clients(InMemoryNetwork network, InetSocketAddress server, int n, int connectTimeoutSeconds) throws Exception {
            this.server = server;
            this.settings = clientSettings(connectTimeoutSeconds);
            for (int i = 0; i < n; i++) {
                ports.add(network.open());
            }
        }

        final ConnectionSettings settings;
        final Random random = new Random(14);

        double now() {
            return (System.nanoTime() - epoch) / 1e9;
        }

        /**
         * Starts the clients' handshakes a wave at a time (each wave's first requests all sent before an
         * answer is read), reading every started client's port and running its timers, until all are
         * connected (or ended, or the time is up).
         */
        double connectAll(double limitSeconds) throws Exception {
            ByteBuffer in = ByteBuffer.allocate(2048);
            double start = now();
            while (connected + ended.values().stream().mapToInt(Integer::intValue).sum() < ports.size()
                    && now() - start < limitSeconds) {
                if (connections.size() < ports.size() && connected + endedCount() == connections.size()) {
                    int end = Math.min(ports.size(), connections.size() + WAVE);
                    for (int i = connections.size(); i < end; i++) {
                        connections.add(Connection.client(settings, PortTransmitter.to(ports.get(i), server), events(), random, now()));
                    }
                }
                boolean any = false;
                for (int i = 0; i < connections.size(); i++) {
                    DatagramPort port = ports.get(i);
                    Connection connection = connections.get(i);
                    if (connection == null) {
                        continue; // connected: its part is done
                    }
                    InetSocketAddress from;
                    while ((from = port.receive(in.clear())) != null) {
                        any = true;
                        if (from.equals(server)) {
                            connection.receive(in.array(), 0, in.position(), now());
                        }
                    }
                    connection.update(now());
                    if (connection.state() == Connection.State.CONNECTED) {
                        // the server has it: from now on the server's keepalives go nowhere, as from a client that vanished
                        port.close();
                        connections.set(i, null);
                    }
                }
                // a pass over thousands of clients, then a pause: the server's thread needs the cores more
                Thread.sleep(any ? 1 : 2);
            }
            return now() - start;
        }

        int endedCount() {
            return ended.values().stream().mapToInt(Integer::intValue).sum();
        }

        void close() {
            for (DatagramPort p : ports) {
                p.close();
            }
            ports.clear();
            connections.clear();
        }


        private Connection.Events events() {
            return new Connection.Events() {
                @Override
                public void onConnected() {
                    connected++;
                }

                @Override
                public void onDisconnected(DisconnectReason reason, String detail) {
                    ended.merge(reason, 1, Integer::sum);
                }

                @Override
                public void onMessage(int channel, int messageId, byte[] data, int offset, int length) {
                    // the server sends none
                }

                @Override
                public void onDrop(DropReason reason) {
                    // counted by nobody: a stray datagram of the handshake
                }
            };
        }
    }

    /** What a node with the default configuration gives its connections (as {@code DatagramNode} derives it). */
    static ConnectionSettings clientSettings() {
        return clientSettings(NodeConfig.builder().build().connectTimeout().toSeconds());
    }

    /** {@link #clientSettings()} with another connect timeout. */
    static ConnectionSettings clientSettings(long connectTimeoutSeconds) {
        NodeConfig node = NodeConfig.builder().connectTimeout(Duration.ofSeconds(connectTimeoutSeconds)).build();
        MessageConfig requested = node.message();
        MessageConfig message = requested.toBuilder()
                .lowerLayerOverhead(Math.max(Connection.frameOverhead(false), requested.lowerLayerOverhead()))
                .sendRateHz(node.sendRateHz()).sendMode(node.sendMode()).build();
        double keepAlive = node.keepAliveInterval().toNanos() / 1e9;
        return new ConnectionSettings(node.protocolId(), null, keepAlive, node.timeout().toNanos() / 1e9,
                node.connectTimeout().toNanos() / 1e9, Math.min(keepAlive, 0.25), message, MessageSession.FACTORY);
    }
}
