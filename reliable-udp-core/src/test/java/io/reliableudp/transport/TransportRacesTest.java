package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Races between threads of the transport, each made to happen every time by a hook at the point
 * where the other thread's step used to slip in: a connect that a close overtakes, a wake timer armed
 * while its loop closes, an accepted connection and a client connection to the same address at once,
 * and datagrams handed from one I/O lane to another faster than it takes them.
 */
@Timeout(60)
class TransportRacesTest {

    private static final InetSocketAddress ELSEWHERE = new InetSocketAddress("127.0.0.1", 9);

    @Test
    void aConnectThatACloseOvertakesStillEnds() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        DatagramNode node = DatagramNode.start(NodeConfig.builder().build(), new RecordingListener(), Sessions.DEFAULT,
                network.open());
        try {
            node.beforeConnectAdds = node::close; // the close runs after connect found the node open
            CompletableFuture<Peer> f = node.connect(ELSEWHERE);
            // it fails (the node closed), it does not wait for ever on a peer no loop serves
            try {
                f.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException expected) {
                // the node closed
            }
            assertThat(f).isCompletedExceptionally();
            assertThat(node.peers()).isEmpty();
        } finally {
            node.beforeConnectAdds = null;
            node.close();
        }
    }

    @Test
    void aWakeTimerArmedWhileItsLoopClosesIsNotKept() {
        WakeTimer timer = new WakeTimer(() -> Long.MAX_VALUE, () -> { }, "closing loop");
        WakeTimer.beforeRegister = timer::close; // the close runs after ensure found the timer open
        try {
            timer.ensure(System.nanoTime() + 1_000_000_000L);
        } finally {
            WakeTimer.beforeRegister = null;
        }
        assertThat(timer.listed()).as("the timer thread's list keeps a closed timer").isFalse();
    }

    @Test
    void anAcceptedConnectionDoesNotReplaceAClientConnectionOfTheSameAddress() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        DatagramNode node = DatagramNode.start(NodeConfig.builder().build(), new RecordingListener(), Sessions.DEFAULT,
                network.open());
        try {
            IoLane lane = node.lanes()[0];
            PeerTable table = new PeerTable();
            PeerDriver client = node.newPeer(lane, ELSEWHERE, true);
            PeerDriver accepted = node.newPeer(lane, ELSEWHERE, false);
            assertThat(table.addClient(client, false)).isNull();
            // the acceptor found no peer of that address a moment ago; the client peer came in between
            table.addServer(accepted);
            assertThat(table.get(ELSEWHERE)).as("the client peer stays").isSameAs(client);
            assertThat(table.serverConnections()).isZero();
        } finally {
            node.close();
        }
    }

    @Test
    void datagramsHandedToAnotherLaneAreBounded() throws Exception {
        InMemoryNetwork network = new InMemoryNetwork();
        DatagramNode node = DatagramNode.start(NodeConfig.builder().build(), new RecordingListener(), Sessions.DEFAULT,
                network.open());
        IoLane lane = node.lanes()[0];
        PeerDriver peer = node.newPeer(lane, ELSEWHERE, false);
        node.close(); // the lane's loop no longer takes them: they would pile up
        byte[] datagram = new byte[1200];
        for (int i = 0; i < 5_000; i++) {
            lane.handOver(peer, ELSEWHERE, datagram, datagram.length, false);
        }
        assertThat(node.stats().datagramsDropped().getOrDefault("rate_limited", 0L))
                .as("datagrams dropped past the bound").isEqualTo(5_000L - IoLane.MAX_HANDED_OVER);
        assertThat(node.stats().receiveMemoryBytes()).isEqualTo((long) IoLane.MAX_HANDED_OVER * datagram.length);
    }
}
