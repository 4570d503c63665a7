package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.reliableudp.internal.WireCodec;
import io.reliableudp.testsupport.CountedCompletion;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A stateful Jazzer target: two {@link MessageEndpoint}s joined by a link the fuzzer drives, datagram
 * by datagram. The fuzzer chooses what each side sends on which of the four channels (every message
 * with a {@link CountedCompletion}, the message layer's send future), how time passes, each datagram's
 * fate (delivered now, dropped, duplicated, delivered out of order), when either side's connection ends
 * (the endpoint closed with {@code CLOSED}, {@code TIMEOUT} or {@code DISCONNECTED}, as the connection
 * layer closes it), and injects datagrams (its own bytes, or a copy of a real one with bytes changed).
 * Then a clean tail (every datagram delivered, time running), and both endpoints end. Checked to the
 * end of every run:
 * <ul>
 *   <li>every send's completion was told exactly once (a second call fails at once), and a failure
 *       names the refusal ({@code QUEUE_FULL}, {@code TOO_LARGE}) or its side's close reason;</li>
 *   <li>no exception escapes {@code receive}, {@code update}, {@code offer}, a listener or a
 *       completion; the packet layer's safety net caught nothing;</li>
 *   <li>nothing delivered in a run free of injected datagrams is anything but a message the other
 *       side's application offered and the endpoint accepted, byte for byte (never one refused, never one
 *       that was not sent); an injected datagram may carry any bytes;</li>
 * </ul>
 * and, in a run where no injected datagram changed the message layer's state ({@link #footprint}):
 * <ul>
 *   <li>reliable-ordered: what was delivered is exactly the first k accepted messages (no gap, no
 *       duplicate, no reordering), and the first one not delivered was not acknowledged (later ones may
 *       have been: received behind it, they end with the connection; docs/reliability.md); with no
 *       connection end, all of them, all acknowledged;</li>
 *   <li>reliable-unordered: at most once; every message whose completion said delivered was delivered;
 *       with no connection end, every one delivered and every completion said delivered;</li>
 *   <li>unreliable: at most once;</li>
 *   <li>unreliable-sequenced: never an older one after a newer one;</li>
 *   <li>no delivery that is not a message of ours.</li>
 * </ul>
 * The message layer authenticates nothing (the connection layer's AEAD does): an injected datagram that
 * the packet layer accepts may carry forged acknowledgements (a completion said delivered for a message
 * the peer never got) or forged message ids (a real message dropped as a duplicate of a forged one), so
 * the second list needs a run free of them. A copy of a real message is still "of ours", byte for byte.
 *
 * <p>In the normal build it runs in regression mode over {@code DeliveryFuzzTestInputs/}; to fuzz:
 * {@code JAZZER_FUZZ=1 ./mvnw -pl reliable-udp-core test -Dtest=DeliveryFuzzTest} (30 s a run)
 * (or {@code benchmarks/fuzz-all.sh}).
 */
class DeliveryFuzzTest {

    private static final int CHANNELS = 4;
    private static final int HEADER = 1 + 4; // channel, sequence number of the sender on that channel
    private static final DeliveryFailure[] ENDS = {DeliveryFailure.CLOSED, DeliveryFailure.TIMEOUT, DeliveryFailure.DISCONNECTED};

    /** One offered message: its number on its channel, its bytes, and its completion. */
    private record Sent(int n, byte[] payload, CountedCompletion completion, boolean accepted) {
    }

    /** One side: its endpoint, the datagrams on their way to the other side, and its bookkeeping. */
    private static final class Side {
        final List<byte[]> outbound = new ArrayList<>();
        final int[] nextNumber = new int[CHANNELS];
        final List<List<Sent>> offered = new ArrayList<>();
        final List<Map<Integer, Sent>> byNumber = new ArrayList<>();
        final List<List<Integer>> delivered = new ArrayList<>(); // what this side received, per channel
        final List<byte[]> deliveredBytes = new ArrayList<>(); // with its channel in the first byte
        MessageEndpoint endpoint;
        boolean tainted;
        @Nullable DeliveryFailure ended;

        Side() {
            for (int c = 0; c < CHANNELS; c++) {
                offered.add(new ArrayList<>());
                byNumber.add(new HashMap<>());
                delivered.add(new ArrayList<>());
            }
        }

        void onMessage(int channel, byte[] data, int offset, int length) {
            assertThat(channel).isBetween(0, CHANNELS - 1);
            assertThat(offset).isNotNegative();
            assertThat(offset + length).isLessThanOrEqualTo(data.length);
            byte[] copy = Arrays.copyOfRange(data, offset, offset + length);
            deliveredBytes.add(copy);
            delivered.get(channel).add(length >= HEADER && data[offset] == channel ? WireCodec.getIntBE(data, offset + 1) : -1);
        }

        void end(DeliveryFailure reason) {
            if (ended == null) {
                ended = reason;
                endpoint.close(reason);
            }
        }

        List<Sent> accepted(int channel) {
            return offered.get(channel).stream().filter(Sent::accepted).toList();
        }
    }

    @FuzzTest(maxDuration = "30s")
    void deliveryInvariantsHoldUnderAnyLinkBehaviour(FuzzedDataProvider data) {
        MessageConfig config = EndpointPair.config(DeliveryMode.RELIABLE_ORDERED, DeliveryMode.RELIABLE_UNORDERED,
                DeliveryMode.UNRELIABLE, DeliveryMode.UNRELIABLE_SEQUENCED);
        Side a = new Side();
        Side b = new Side();
        double[] time = {100.0};
        a.endpoint = new MessageEndpoint(config, time[0], (d, o, l) -> a.outbound.add(Arrays.copyOfRange(d, o, o + l)),
                (c, id, d, o, l) -> a.onMessage(c, d, o, l));
        b.endpoint = new MessageEndpoint(config, time[0], (d, o, l) -> b.outbound.add(Arrays.copyOfRange(d, o, o + l)),
                (c, id, d, o, l) -> b.onMessage(c, d, o, l));

        int steps = 0;
        while (data.remainingBytes() > 0 && steps++ < 3000) {
            boolean fromA = data.consumeBoolean();
            Side from = fromA ? a : b;
            Side to = fromA ? b : a;
            switch (data.consumeInt(0, 7)) {
                case 0, 1 -> send(from, data.consumeInt(0, CHANNELS - 1), data.consumeInt(0, 200));
                case 2 -> {
                    time[0] += data.consumeInt(1, 300) / 1000.0;
                    a.endpoint.update(time[0]);
                    b.endpoint.update(time[0]);
                }
                case 3 -> {
                    if (!from.outbound.isEmpty()) {
                        int i = data.consumeInt(0, from.outbound.size() - 1);
                        switch (data.consumeInt(0, 2)) {
                            case 0 -> deliver(to, from.outbound.remove(i)); // now, maybe out of order
                            case 1 -> from.outbound.remove(i); // lost
                            default -> deliver(to, from.outbound.get(i)); // duplicated: stays queued
                        }
                    }
                }
                case 4 -> deliverAll(from, to);
                case 5 -> {
                    byte[] injected;
                    if (data.consumeBoolean() && !from.outbound.isEmpty()) {
                        injected = from.outbound.get(data.consumeInt(0, from.outbound.size() - 1)).clone();
                        int changes = data.consumeInt(1, 4);
                        for (int k = 0; k < changes && injected.length > 0; k++) {
                            injected[data.consumeInt(0, injected.length - 1)] = data.consumeByte();
                        }
                    } else {
                        injected = data.consumeBytes(data.consumeInt(0, 1400));
                    }
                    List<Long> before = footprint(to.endpoint.stats());
                    to.endpoint.receive(injected, 0, injected.length);
                    if (!footprint(to.endpoint.stats()).equals(before)) {
                        to.tainted = true; // the message layer took something of it: forged messages or acks are possible
                    }
                }
                case 6 -> {
                    if (data.consumeInt(0, 7) == 0) {
                        from.end(ENDS[data.consumeInt(0, ENDS.length - 1)]); // the connection ended on this side
                    } else {
                        from.endpoint.flush(time[0]);
                    }
                }
                default -> from.endpoint.flush(time[0]);
            }
        }

        // clean tail: every datagram delivered in order, time running, until nothing reliable is pending
        for (int i = 0; i < 3000; i++) {
            time[0] += 0.02;
            a.endpoint.update(time[0]);
            b.endpoint.update(time[0]);
            deliverAll(a, b);
            deliverAll(b, a);
            if (i > 50 && !a.endpoint.hasPendingReliable() && !b.endpoint.hasPendingReliable()) {
                break;
            }
        }
        deliverAll(a, b);
        deliverAll(b, a);
        boolean connectionEnded = a.ended != null || b.ended != null;
        boolean tainted = a.tainted || b.tainted;
        if (!connectionEnded && !tainted) {
            // before the ends below fail what is still pending: a clean tail leaves nothing reliable pending
            checkAllReliableDelivered(a);
            checkAllReliableDelivered(b);
        }
        // then both ends end (a node's shutdown, or the survivor's timeout): every completion is told by now
        a.end(DeliveryFailure.TIMEOUT);
        b.end(DeliveryFailure.CLOSED);

        for (Side s : List.of(a, b)) {
            assertThat(s.endpoint.stats().listenerErrors()).as("exceptions of listeners and completions").isZero();
            assertThat(s.endpoint.packetLayerFailures()).as("packet-layer exceptions caught by the safety net").isZero();
            checkCompletions(s);
        }
        checkOnlyOurs(a, b, tainted);
        checkOnlyOurs(b, a, tainted);
        if (!tainted) {
            check(a, b);
            check(b, a);
        }
    }

    /**
     * What an accepted datagram changes: packets taken (received less malformed and rejected ones, which
     * the packet layer does not acknowledge), messages received, dropped or acknowledged per channel, bytes
     * in flight (an acknowledged packet leaves them) and reassembly. An injected datagram that leaves all
     * of them as they were was refused whole, and the run stays one whose every promise is checked.
     */
    private static List<Long> footprint(MessageStats stats) {
        List<Long> f = new ArrayList<>();
        f.add(stats.packetsReceived() - stats.malformedPackets() - stats.rejectedPackets());
        f.add(stats.bytesInFlight());
        f.add(stats.reassemblyBytes());
        for (ChannelStats c : stats.channels()) {
            f.add(c.messagesReceived());
            f.add(c.messagesDropped());
            f.add(c.duplicatesDropped());
            f.add(c.messagesAcked());
        }
        return f;
    }

    private static void send(Side from, int channel, int extra) {
        int n = from.nextNumber[channel]++;
        byte[] payload = new byte[HEADER + extra];
        payload[0] = (byte) channel;
        WireCodec.putIntBE(payload, 1, n);
        for (int k = HEADER; k < payload.length; k++) {
            payload[k] = (byte) (n * 31 + k); // the body depends on the number: a copy under another number is not ours
        }
        CountedCompletion completion = new CountedCompletion();
        int id = from.endpoint.offer(channel, payload, completion);
        Sent sent = new Sent(n, payload, completion, id >= 0);
        from.offered.get(channel).add(sent);
        from.byNumber.get(channel).put(n, sent);
        if (id < 0) {
            assertThat(id).isIn(MessageEndpoint.OFFER_QUEUE_FULL, MessageEndpoint.OFFER_TOO_LARGE, MessageEndpoint.OFFER_CLOSED);
            assertThat(completion.calls()).as("a refused send is told before offer returns").isEqualTo(1);
            DeliveryFailure expected = switch (id) {
                case MessageEndpoint.OFFER_QUEUE_FULL -> DeliveryFailure.QUEUE_FULL;
                case MessageEndpoint.OFFER_TOO_LARGE -> DeliveryFailure.TOO_LARGE;
                default -> from.ended;
            };
            assertThat(completion.failure()).as("the refusal's reason").isEqualTo(expected);
        }
    }

    private static void deliver(Side to, byte[] datagram) {
        to.endpoint.receive(datagram, 0, datagram.length);
    }

    private static void deliverAll(Side from, Side to) {
        while (!from.outbound.isEmpty()) {
            deliver(to, from.outbound.remove(0));
        }
    }

    /** A clean tail with the connection up: every reliable message's completion said delivered. */
    private static void checkAllReliableDelivered(Side from) {
        for (int c = 0; c < 2; c++) {
            for (Sent s : from.accepted(c)) {
                assertThat(s.completion().delivered()).as("channel %d message %d acknowledged after a clean tail (%s)",
                        c, s.n(), s.completion()).isTrue();
            }
        }
    }

    /** Every completion of {@code s} was told exactly once, and a failure names its refusal or the close. */
    private static void checkCompletions(Side s) {
        for (int c = 0; c < CHANNELS; c++) {
            for (Sent sent : s.offered.get(c)) {
                CountedCompletion done = sent.completion();
                assertThat(done.calls()).as("channel %d message %d: completion told exactly once", c, sent.n()).isEqualTo(1);
                if (sent.accepted() && !done.delivered()) {
                    assertThat(done.failure()).as("channel %d message %d: a pending message fails with its side's close reason",
                            c, sent.n()).isEqualTo(s.ended);
                }
            }
        }
    }

    /** Every delivery to {@code to} is a message {@code from} offered and had accepted, byte for byte (forgeries only when tainted). */
    private static void checkOnlyOurs(Side from, Side to, boolean tainted) {
        int notOurs = 0;
        for (byte[] d : to.deliveredBytes) {
            Sent sent = d.length >= HEADER && d[0] >= 0 && d[0] < CHANNELS
                    ? from.byNumber.get(d[0]).get(WireCodec.getIntBE(d, 1)) : null;
            if (sent == null || !Arrays.equals(sent.payload(), d)) {
                notOurs++;
                continue;
            }
            if (!tainted) {
                // an injected datagram can carry any bytes, a refused message's too (their shape is no secret)
                assertThat(sent.accepted()).as("a refused message (channel %d, %d) was never sent, so never delivered",
                        d[0], sent.n()).isTrue();
            }
        }
        if (!tainted) {
            assertThat(notOurs).as("deliveries that are no message of ours").isZero();
        }
    }

    /** The invariants of what {@code to} received from {@code from}, in a run free of injected datagrams. */
    private static void check(Side from, Side to) {
        boolean ended = from.ended != null || to.ended != null;
        List<Integer> acceptedOrdered = from.accepted(0).stream().map(Sent::n).toList();
        List<Integer> ordered = to.delivered.get(0);
        assertThat(ordered.size()).as("reliable-ordered: no more than was accepted").isLessThanOrEqualTo(acceptedOrdered.size());
        assertThat(ordered).as("reliable-ordered: exactly the first %d accepted messages, once each, in order", ordered.size())
                .containsExactlyElementsOf(acceptedOrdered.subList(0, ordered.size()));
        if (!ended) {
            assertThat(ordered).as("reliable-ordered: all of them after a clean tail").hasSameSizeAs(acceptedOrdered);
        } else if (ordered.size() < acceptedOrdered.size()) {
            // the first message not delivered was not acknowledged either; the ones after it may have been
            // (received and held behind it, then dropped with the connection): docs/reliability.md says so
            Sent first = from.accepted(0).get(ordered.size());
            assertThat(first.completion().delivered()).as("reliable-ordered: message %d acknowledged but not delivered,"
                    + " with every earlier one delivered (sender's end: %s)", first.n(), from.ended).isFalse();
        }

        List<Integer> unordered = to.delivered.get(1);
        assertThat(unordered).as("reliable-unordered: at most once").doesNotHaveDuplicates();
        if (!ended) {
            assertThat(new HashSet<>(unordered)).as("reliable-unordered: exactly once after a clean tail")
                    .isEqualTo(new HashSet<>(from.accepted(1).stream().map(Sent::n).toList()));
        }
        checkAckedWereDelivered(from, 1, unordered);

        List<Integer> unreliable = to.delivered.get(2);
        assertThat(unreliable).as("unreliable: at most once").doesNotHaveDuplicates();
        List<Integer> sequenced = to.delivered.get(3);
        for (int i = 1; i < sequenced.size(); i++) {
            assertThat(sequenced.get(i)).as("unreliable-sequenced: never an older one after a newer one")
                    .isGreaterThan(sequenced.get(i - 1));
        }
    }

    /** A reliable message whose completion said delivered (acknowledged) was delivered. */
    private static void checkAckedWereDelivered(Side from, int channel, List<Integer> delivered) {
        Set<Integer> got = new HashSet<>(delivered);
        for (Sent s : from.accepted(channel)) {
            if (s.completion().delivered()) {
                assertThat(got).as("channel %d message %d acknowledged but never delivered (sender's end: %s, delivered: %s)",
                        channel, s.n(), from.ended, delivered).contains(s.n());
            }
        }
    }
}
