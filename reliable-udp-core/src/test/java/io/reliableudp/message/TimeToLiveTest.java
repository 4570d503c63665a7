package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.link.LinkConditionerConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * Time-to-live through a lossy link with an outage, on the link conditioner's simulated clock: a
 * stream of messages with a 50 ms time-to-live, 20 % loss each way and a one-second blackhole. Nothing
 * reaches the listener older than its time-to-live, every message that is not delivered has a future
 * that failed with {@link DeliveryFailure#EXPIRED} (or, on the ordered channel, was received in time
 * and dropped by the receiver while it waited, which its counter shows), no future both expired and
 * delivered, and the ordered channel goes on past the ids the sender abandoned. The one case the acks
 * cannot tell (docs/messages.md, "Limits"): a message that arrived just as the path went black, every
 * ack of it lost, fails {@code EXPIRED} though the receiver had it; allowed only for messages sent
 * within a time-to-live before the blackhole, at most {@link #UNTOLD_MAX} per stream, as in
 * {@code TimeToLiveNetnsTest}.
 */
class TimeToLiveTest {

    static final int TTL_MS = 50;
    static final double LATENCY_MS = 5;
    /** When the blackhole starts, seconds into the stream (which starts at 100 s on the simulated clock). */
    static final double OUTAGE_FROM = 3.0;
    /** Most messages per stream that the receiver had but whose every ack the blackhole took. */
    static final int UNTOLD_MAX = 3;

    /** One message of the stream: when it was sent, its future, and when (if) the listener got it. */
    static final class Sent {
        final double sentAt;
        final CompletableFuture<Void> future;
        double deliveredAt = -1;
        int deliveredAge = -2;
        int deliveries;

        Sent(double sentAt, CompletableFuture<Void> future) {
            this.sentAt = sentAt;
            this.future = future;
        }
    }

    static LinkConditionerConfig lossy(double loss, long seed) {
        return new LinkConditionerConfig(LATENCY_MS, 0, loss, 0, 1, 0, 0, 0, 0, 0, 1 << 20, seed);
    }

    /** The stream on {@code channel} (mode as configured), 200 messages a second for 8 s, an outage from 3 to 4 s. */
    static Map<Integer, Sent> stream(EndpointPair p, int channel, boolean perMessageTtl) {
        Map<Integer, Sent> sent = new HashMap<>();
        List<Integer> order = new ArrayList<>();
        p.extraB = (c, id, d, o, l) -> {
            if (c != channel) {
                return;
            }
            Sent s = sent.get(id);
            assertThat(s).as("message %d delivered but never sent", id).isNotNull();
            s.deliveries++;
            s.deliveredAt = p.time;
            s.deliveredAge = p.b.deliveredMessageAgeMillis();
            order.add(id);
        };
        p.recordB = false;
        p.followDeadlines = true;
        double start = p.time;
        for (int k = 0; k < 1600; k++) {
            double t = p.time - start;
            if (t >= OUTAGE_FROM && t < OUTAGE_FROM + 0.005) {
                p.ab.reconfigure(lossy(1.0, 7));
                p.ba.reconfigure(lossy(1.0, 8));
            } else if (t >= 4.0 && t < 4.005) {
                p.ab.reconfigure(lossy(0.2, 9));
                p.ba.reconfigure(lossy(0.2, 10));
            }
            byte[] payload = new byte[32];
            payload[0] = (byte) k;
            SendHandle h = perMessageTtl ? p.a.send(channel, payload, TTL_MS) : p.a.send(channel, payload);
            assertThat(h.messageId()).isGreaterThanOrEqualTo(0);
            CompletableFuture<Void> f = h.future();
            sent.put(h.messageId(), new Sent(p.time, f));
            p.step(0.005);
        }
        p.run(3.0, 0.005); // drain: every verdict is in
        if (p.a.config().channels().get(channel).mode() == DeliveryMode.RELIABLE_ORDERED) {
            for (int i = 1; i < order.size(); i++) {
                assertThat(order.get(i)).as("ordered delivery").isGreaterThan(order.get(i - 1));
            }
        }
        return sent;
    }

    static EndpointPair pair(ChannelConfig channel) {
        MessageConfig config = MessageConfig.builder().channels(List.of(channel)).build();
        return new EndpointPair(config, lossy(0.2, 1), lossy(0.2, 2));
    }

    static boolean expired(CompletableFuture<Void> f) {
        if (!f.isCompletedExceptionally()) {
            return false;
        }
        try {
            f.join();
            return false;
        } catch (CompletionException e) {
            return e.getCause() instanceof DeliveryException d && d.reason() == DeliveryFailure.EXPIRED;
        }
    }

    /** The promises, checked over every message of a stream; returns {expired futures, delivered}. */
    static long[] check(EndpointPair p, Map<Integer, Sent> sent, int channel) {
        long expiredFutures = 0;
        long delivered = 0;
        long undelivered = 0;
        long untold = 0;
        for (var e : sent.entrySet()) {
            Sent s = e.getValue();
            assertThat(s.future).as("message %d has a verdict", e.getKey()).isDone();
            assertThat(s.deliveries).as("message %d delivered at most once", e.getKey()).isLessThanOrEqualTo(1);
            boolean exp = expired(s.future);
            if (s.deliveries == 1) {
                delivered++;
                if (exp) {
                    // received as the path went black, every ack of it lost: the sender cannot tell
                    double before = OUTAGE_FROM - (s.sentAt - 100.0);
                    assertThat(before).as("message %d both expired and delivered", e.getKey())
                            .isBetween(-0.005, TTL_MS / 1000.0);
                    untold++;
                    expiredFutures++;
                } else {
                    assertThat(s.future).as("a delivered message's future succeeded").isCompleted().isNotCompletedExceptionally();
                }
                assertThat((s.deliveredAt - s.sentAt) * 1000).as("age of message %d when delivered", e.getKey())
                        .isLessThan(TTL_MS);
                assertThat(s.deliveredAge).as("the age the listener is told").isBetween(0, TTL_MS - 1);
            } else {
                undelivered++;
                if (exp) {
                    expiredFutures++;
                } else {
                    assertThat(s.future).as("message %d not delivered: expired, or received in time", e.getKey())
                            .isCompleted().isNotCompletedExceptionally();
                }
            }
        }
        ChannelStats rs = p.b.stats().channels().get(channel);
        ChannelStats ss = p.a.stats().channels().get(channel);
        // a message neither delivered nor expired was received in time and dropped by the receiver while it waited
        // (more when a message received just as the path went black waited there and expired at both ends)
        long receivedAndExpired = rs.receivedExpired() - (undelivered - (expiredFutures - untold));
        assertThat(receivedAndExpired).as("undelivered, not expired").isNotNegative();
        untold += receivedAndExpired;
        assertThat(untold).as("expired futures of messages the receiver had (acks lost in the blackhole)")
                .isLessThanOrEqualTo(UNTOLD_MAX);
        assertThat(ss.messagesExpired()).isEqualTo(expiredFutures);
        assertThat(p.a.stats().channels().get(channel).queuedMessages()).isZero();
        System.out.println("TTL " + p.a.config().channels().get(channel).mode() + ": sent " + sent.size() + ", delivered " + delivered
                + ", expired futures " + expiredFutures + ", received expired " + rs.receivedExpired() + ", skipped " + rs.messagesSkipped()
                + ", resent " + ss.messagesResent() + ", untold " + untold);
        return new long[] {expiredFutures, delivered};
    }

    @Test
    void orderedStreamThroughLossAndAnOutage() {
        EndpointPair p = pair(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED).ttl(java.time.Duration.ofMillis(TTL_MS)));
        Map<Integer, Sent> sent = stream(p, 0, false);
        long[] r = check(p, sent, 0);
        assertThat(r[0]).as("the outage expired messages").isGreaterThan(150);
        // ordered delivery went on past the skipped ids: messages sent after the outage arrived
        assertThat(sent.values().stream().filter(s -> s.sentAt - 100.0 > 4.2 && s.deliveries == 1).count())
                .isGreaterThan(500);
        assertThat(p.b.stats().channels().get(0).messagesSkipped()).isGreaterThan(0);
    }

    @Test
    void unorderedStreamWithPerMessageTtl() {
        EndpointPair p = pair(ChannelConfig.of(DeliveryMode.RELIABLE_UNORDERED));
        Map<Integer, Sent> sent = stream(p, 0, true);
        long[] r = check(p, sent, 0);
        assertThat(r[0]).isGreaterThan(150);
        assertThat(p.b.stats().channels().get(0).receivedExpired()).isZero(); // nothing waits on this channel
    }

    @Test
    void unreliableStream() {
        EndpointPair p = pair(ChannelConfig.of(DeliveryMode.UNRELIABLE).ttl(java.time.Duration.ofMillis(TTL_MS)));
        Map<Integer, Sent> sent = stream(p, 0, false);
        for (Sent s : sent.values()) {
            assertThat(s.deliveries).isLessThanOrEqualTo(1);
            if (s.deliveries == 1) {
                assertThat((s.deliveredAt - s.sentAt) * 1000).isLessThan(TTL_MS);
            }
        }
    }
}
