package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.connection.Connection;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The IMMEDIATE tick costs O(due peers), not O(all peers) (the per-connection cost that does
 * not depend on traffic): a server with 400 idle connections and a 10 s keepalive visits, over two
 * seconds of ticks, only the peers whose timers came due, where a pass over every peer would visit
 * 400 per tick. A count of heap visits against a count of ticks, not a timing.
 */
@Timeout(300)
class TickCostTest {

    private static final int CLIENTS = 400;

    @Test
    void idlePeersAreNotVisitedByTicksBeforeTheyAreDue() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        NodeConfig config = NodeConfig.builder().timeout(Duration.ofSeconds(600)).keepAliveInterval(Duration.ofSeconds(10)).build();
        try (DatagramNode server = (DatagramNode) ReliableUdpNode.start(config, (p, c, id, d) -> { }, network.open())) {
            InetSocketAddress to = server.localAddress();
            int connected = connect(network, to, CLIENTS);
            assertThat(connected).isEqualTo(CLIENTS);
            long until = System.nanoTime() + 30_000_000_000L;
            while (server.peers().size() < CLIENTS && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            assertThat(server.peers()).hasSize(CLIENTS);
            // each new peer is visited once at its first tick, then not before its keepalive (10 s)
            long settleTicks = server.ticks() + 3;
            while (server.ticks() < settleTicks) {
                Thread.sleep(20);
            }
            long ticks0 = server.ticks();
            long visits0 = server.housekeepingVisits();
            assertThat(visits0).as("every new peer visited at its first tick").isGreaterThanOrEqualTo(CLIENTS);
            Thread.sleep(2_000);
            long ticks = server.ticks() - ticks0;
            long visits = server.housekeepingVisits() - visits0;
            System.out.printf(Locale.ROOT, "TickCostTest %d idle peers: %d ticks, %d heap visits (a pass over all: %d)%n",
                    CLIENTS, ticks, visits, ticks * CLIENTS);
            assertThat(ticks).as("ticks in 2 s (125 ms each)").isGreaterThanOrEqualTo(2);
            assertThat(visits).as("peers visited by %d ticks", ticks).isLessThanOrEqualTo(ticks * CLIENTS / 4);
            assertThat(server.peers()).as("no peer timed out or was dropped").hasSize(CLIENTS);
        }
    }

    /** Connects {@code n} sans-I/O clients, each on an in-memory port of its own, and leaves them once connected (their first keepalive sent). */
    private static int connect(InMemoryNetwork network, InetSocketAddress server, int n) throws Exception {
        var settings = IdleConnectionMemoryTest.clientSettings();
        Random random = new Random(14);
        long epoch = System.nanoTime();
        List<DatagramPort> ports = new ArrayList<>();
        List<Connection> connections = new ArrayList<>();
        int[] connected = {0};
        for (int i = 0; i < n; i++) {
            DatagramPort port = network.open();
            ports.add(port);
            connections.add(Connection.client(settings, PortTransmitter.to(port, server), events(connected), random,
                    (System.nanoTime() - epoch) / 1e9));
        }
        ByteBuffer in = ByteBuffer.allocate(2048);
        long until = System.nanoTime() + 120_000_000_000L;
        int done = 0;
        while (done < n && System.nanoTime() < until) {
            for (int i = 0; i < n; i++) {
                Connection c = connections.get(i);
                if (c == null) {
                    continue;
                }
                double now = (System.nanoTime() - epoch) / 1e9;
                InetSocketAddress from;
                while ((from = ports.get(i).receive(in.clear())) != null) {
                    if (from.equals(server)) {
                        c.receive(in.array(), 0, in.position(), now);
                    }
                }
                c.update(now); // connected: sends its first keepalive, which confirms it to the server
                if (c.state() != Connection.State.REQUESTING && c.state() != Connection.State.RESPONDING) {
                    ports.get(i).close();
                    connections.set(i, null);
                    done++;
                }
            }
            Thread.sleep(2);
        }
        return connected[0];
    }


    private static Connection.Events events(int[] connected) {
        return new Connection.Events() {
            @Override
            public void onConnected() {
                connected[0]++;
            }

            @Override
            public void onDisconnected(DisconnectReason reason, String detail) {
                // counted by the caller's state check
            }

            @Override
            public void onMessage(int channel, int messageId, byte[] data, int offset, int length) {
                // the server sends none
            }

            @Override
            public void onDrop(DropReason reason) {
                // a stray datagram of the handshake
            }
        };
    }
}
