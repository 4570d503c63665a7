package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.reliableudp.internal.WireCodec;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A stateful Jazzer target: two {@link MessageEndpoint}s joined by a link the fuzzer drives, datagram
 * by datagram. The fuzzer chooses what each side sends on which of the four channels, how time passes,
 * and each datagram's fate (delivered now, dropped, duplicated, delivered out of order), and injects
 * datagrams (its own bytes, or a copy of a real one with bytes changed). After a clean tail (everything
 * delivered, time running) the delivery invariants hold for the messages each side sent:
 * <ul>
 *   <li>reliable-ordered: delivered exactly once, in send order;</li>
 *   <li>reliable-unordered: at most once, and exactly once after the clean tail;</li>
 *   <li>unreliable: at most once;</li>
 *   <li>unreliable-sequenced: never an older one after a newer one;</li>
 *   <li>no exception escapes {@code receive}, {@code update}, {@code offer} or a listener.</li>
 * </ul>
 * The message layer authenticates nothing (the connection layer's AEAD does): an injected datagram that
 * the packet layer accepts could carry forged messages or acks, so a run where one reached the message
 * layer ("tainted") checks only that nothing throws and that what is delivered is well-formed.
 *
 * <p>In the normal build it runs in regression mode over {@code DeliveryFuzzTestInputs/}; to fuzz:
 * {@code JAZZER_FUZZ=1 ./mvnw -pl reliable-udp-core test -Dtest=DeliveryFuzzTest} (30 s a run)
 * (or {@code benchmarks/fuzz-all.sh}).
 */
class DeliveryFuzzTest {

    private static final int CHANNELS = 4;
    private static final int HEADER = 1 + 4; // channel, sequence number of the sender on that channel

    /** One side: its endpoint, the datagrams on their way to the other side, and its bookkeeping. */
    private static final class Side {
        final List<byte[]> outbound = new ArrayList<>();
        final int[] nextId = new int[CHANNELS];
        final List<List<Integer>> accepted = new ArrayList<>();
        final List<List<Integer>> delivered = new ArrayList<>(); // what this side received, per channel
        MessageEndpoint endpoint;
        boolean tainted;
        int malformedDeliveries;

        Side() {
            for (int c = 0; c < CHANNELS; c++) {
                accepted.add(new ArrayList<>());
                delivered.add(new ArrayList<>());
            }
        }

        void onMessage(int channel, byte[] data, int offset, int length) {
            assertThat(channel).isBetween(0, CHANNELS - 1);
            assertThat(offset).isNotNegative();
            assertThat(offset + length).isLessThanOrEqualTo(data.length);
            if (length < HEADER || data[offset] != channel) {
                malformedDeliveries++;
                return;
            }
            delivered.get(channel).add(WireCodec.getIntBE(data, offset + 1));
        }
    }

    @FuzzTest(maxDuration = "30s")
    void deliveryInvariantsHoldUnderAnyLinkBehaviour(FuzzedDataProvider data) {
        MessageConfig config = EndpointPair.config(DeliveryMode.RELIABLE_ORDERED, DeliveryMode.RELIABLE_UNORDERED,
                DeliveryMode.UNRELIABLE, DeliveryMode.UNRELIABLE_SEQUENCED);
        Side a = new Side();
        Side b = new Side();
        double[] time = {100.0};
        a.endpoint = new MessageEndpoint(config, time[0], (d, o, l) -> a.outbound.add(java.util.Arrays.copyOfRange(d, o, o + l)),
                (c, id, d, o, l) -> a.onMessage(c, d, o, l));
        b.endpoint = new MessageEndpoint(config, time[0], (d, o, l) -> b.outbound.add(java.util.Arrays.copyOfRange(d, o, o + l)),
                (c, id, d, o, l) -> b.onMessage(c, d, o, l));

        int steps = 0;
        while (data.remainingBytes() > 0 && steps++ < 3000) {
            boolean fromA = data.consumeBoolean();
            Side from = fromA ? a : b;
            Side to = fromA ? b : a;
            switch (data.consumeInt(0, 6)) {
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
                    long before = to.endpoint.stats().packetsReceived();
                    to.endpoint.receive(injected, 0, injected.length);
                    if (to.endpoint.stats().packetsReceived() != before) {
                        to.tainted = true; // it reached the message layer: forged messages or acks are possible
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

        for (Side s : List.of(a, b)) {
            assertThat(s.endpoint.stats().listenerErrors()).isZero();
            assertThat(s.endpoint.packetLayerFailures()).as("packet-layer exceptions caught by the safety net").isZero();
        }
        if (a.tainted || b.tainted) {
            return;
        }
        check(a, b);
        check(b, a);
    }

    private static void send(Side from, int channel, int extra) {
        int n = from.nextId[channel];
        byte[] payload = new byte[HEADER + extra];
        payload[0] = (byte) channel;
        WireCodec.putIntBE(payload, 1, n);
        int id = from.endpoint.offer(channel, payload);
        if (id >= 0) {
            from.nextId[channel] = n + 1;
            from.accepted.get(channel).add(n);
        } else {
            assertThat(id).isIn(MessageEndpoint.OFFER_QUEUE_FULL, MessageEndpoint.OFFER_TOO_LARGE);
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

    /** The invariants of what {@code to} received from {@code from}. */
    private static void check(Side from, Side to) {
        assertThat(to.malformedDeliveries).as("deliveries that are no message of ours").isZero();
        List<Integer> ordered = to.delivered.get(0);
        assertThat(ordered).as("reliable-ordered: exactly once, in order").containsExactlyElementsOf(from.accepted.get(0));
        List<Integer> unordered = to.delivered.get(1);
        assertThat(unordered).as("reliable-unordered: at most once").doesNotHaveDuplicates();
        assertThat(new HashSet<>(unordered)).as("reliable-unordered: exactly once after a clean tail")
                .isEqualTo(new HashSet<>(from.accepted.get(1)));
        List<Integer> unreliable = to.delivered.get(2);
        assertThat(unreliable).as("unreliable: at most once").doesNotHaveDuplicates();
        Set<Integer> sentUnreliable = new HashSet<>(from.accepted.get(2));
        assertThat(sentUnreliable).as("unreliable: only what was sent").containsAll(unreliable);
        List<Integer> sequenced = to.delivered.get(3);
        for (int i = 1; i < sequenced.size(); i++) {
            assertThat(sequenced.get(i)).as("unreliable-sequenced: never an older one after a newer one")
                    .isGreaterThan(sequenced.get(i - 1));
        }
        assertThat(new HashSet<>(from.accepted.get(3))).containsAll(sequenced);
    }
}
