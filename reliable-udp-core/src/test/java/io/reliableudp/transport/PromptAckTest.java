package io.reliableudp.transport;

import static io.reliableudp.transport.NodeConnectTest.loopback;
import static io.reliableudp.transport.NodeConnectTest.target;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Prompt acks over real UDP on loopback: a received data packet owes its ack at once, and the I/O
 * thread's turn sends it after the listener calls and their writes, so a reply a listener sends in
 * that turn carries the ack (no ack-only packet per request); with no reply, one ack-only packet per
 * lone message. Counts of datagrams, no timings.
 */
class PromptAckTest {

    private static final int REQUESTS = 50;

    @Test
    void aReplyTheListenerSendsCarriesTheAckSoTheEchoSendsOneDatagramPerRequest() throws Exception {
        BlockingQueue<byte[]> replies = new LinkedBlockingQueue<>();
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), (p, c, id, d) -> p.send(0, d));
             ReliableUdpNode client = ReliableUdpNode.start(loopback().acceptIncoming(false).build(),
                     (p, c, id, d) -> replies.add(d))) {
            Peer peer = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            peer.send(0, new byte[] {-1}).get(5, TimeUnit.SECONDS); // the handshake's traffic is over
            assertThat(replies.poll(5, TimeUnit.SECONDS)).isNotNull();
            long before = server.stats().datagramsSent();
            for (int i = 0; i < REQUESTS; i++) {
                peer.send(0, new byte[] {(byte) i});
                assertThat(replies.poll(5, TimeUnit.SECONDS)).containsExactly((byte) i);
            }
            long sent = settledCount(server, before, REQUESTS);
            // each request's ack rode on its reply: had the turn run the ack deadline before the listener
            // call (or its write), every request would also cost the echo an ack-only packet (2 per request);
            // a keepalive or two may fall into the run
            assertThat(sent).as("datagrams the echo sent for %d requests", REQUESTS).isBetween((long) REQUESTS, REQUESTS + 3L);
        }
    }

    @Test
    void aLoneMessageWithoutReplyIsAcknowledgedByOneAckOnlyPacket() throws Exception {
        try (ReliableUdpNode server = ReliableUdpNode.start(loopback().build(), (p, c, id, d) -> { });
             ReliableUdpNode client = ReliableUdpNode.start(loopback().acceptIncoming(false).build(), (p, c, id, d) -> { })) {
            Peer peer = client.connect(target(server)).get(5, TimeUnit.SECONDS);
            peer.send(0, new byte[] {-1}).get(5, TimeUnit.SECONDS);
            long before = server.stats().datagramsSent();
            for (int i = 0; i < REQUESTS; i++) {
                // each waits for its ack before the next leaves: one ack-only packet per message, at
                // once or, within an ack delay of the last one, when that delay ends
                peer.send(0, new byte[] {(byte) i}).get(5, TimeUnit.SECONDS);
            }
            long sent = settledCount(server, before, REQUESTS);
            // one ack-only packet each (plus, rarely, a catch-up of the sequence or a keepalive)
            assertThat(sent).as("ack-only packets for %d lone messages", REQUESTS).isBetween((long) REQUESTS, REQUESTS + 3L);
        }
    }

    /**
     * The datagrams {@code node} sent since {@code before}, once at least {@code expected} are counted
     * (the node counts a datagram after its send, which the peer may already have answered) and a
     * little later, so that any extra packet of the last exchange is counted too.
     */
    private static long settledCount(ReliableUdpNode node, long before, int expected) throws InterruptedException {
        await().atMost(Duration.ofSeconds(5)).until(() -> node.stats().datagramsSent() - before >= expected);
        Thread.sleep(20);
        return node.stats().datagramsSent() - before;
    }
}
