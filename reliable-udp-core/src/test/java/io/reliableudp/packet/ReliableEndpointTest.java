package io.reliableudp.packet;

import static io.reliableudp.packet.TestLink.fragment;
import static io.reliableudp.packet.TestLink.payload;
import static io.reliableudp.packet.TestLink.regular;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import io.reliableudp.packet.TestLink.Recorded;

/** Behaviour of {@link ReliableEndpoint}: sending, every receive rejection rule, acks, reset. */
class ReliableEndpointTest {

    private static final HexFormat HEX = HexFormat.of();
    private static final ReliableConfig DEFAULTS = ReliableConfig.defaults();

    @Nested
    class Sending {

        @Test
        void firstPacketOfAFreshEndpointCarriesSequence0Ack65535AndNoAckBits() {
            Recorded a = new Recorded(DEFAULTS);
            assertThat(a.endpoint.sendPacket(new byte[] {0x2a}, 0, 1)).isZero();
            assertThat(HEX.formatHex(a.sent.get(0))).isEqualTo("3e000001000000002a");
            assertThat(a.endpoint.nextPacketSequence()).isEqualTo(1);
            assertThat(a.endpoint.counter(PacketCounter.NUM_PACKETS_SENT)).isEqualTo(1);
        }

        @Test
        void payloadAboveFragmentAboveIsSplitInFragmentSizePieces() {
            Recorded a = new Recorded(DEFAULTS);
            assertThat(a.send(3000)).isZero();
            assertThat(a.sent).hasSize(3);
            assertThat(a.sent.get(0).length).isEqualTo(5 + 8 + 1024);
            assertThat(a.sent.get(1).length).isEqualTo(5 + 1024);
            assertThat(a.sent.get(2).length).isEqualTo(5 + 3000 - 2048);
            assertThat(HEX.formatHex(a.sent.get(1), 0, 5)).isEqualTo("0100000102");
            assertThat(a.endpoint.counter(PacketCounter.NUM_FRAGMENTS_SENT)).isEqualTo(3);
            assertThat(a.endpoint.counter(PacketCounter.NUM_PACKETS_SENT)).isEqualTo(1);
        }

        @Test
        void payloadAboveMaxPacketSizeIsRefusedWithoutUsingASequence() {
            Recorded a = new Recorded(DEFAULTS);
            assertThat(a.send(16385)).isEqualTo(-1);
            assertThat(a.sent).isEmpty();
            assertThat(a.endpoint.nextPacketSequence()).isZero();
            assertThat(a.endpoint.counter(PacketCounter.NUM_PACKETS_TOO_LARGE_TO_SEND)).isEqualTo(1);
        }

        @Test
        void payloadNeedingMoreThanMaxFragmentsIsRefusedAsTooLarge() {
            Recorded a = new Recorded(DEFAULTS.toBuilder().maxFragments(2).build());
            assertThat(a.send(2048)).isZero();
            assertThat(a.send(2049)).isEqualTo(-1);
            assertThat(a.endpoint.counter(PacketCounter.NUM_PACKETS_TOO_LARGE_TO_SEND)).isEqualTo(1);
            assertThat(a.endpoint.nextPacketSequence()).isEqualTo(1);
        }

        @Test
        void emptyPayloadIsRefusedByDefault() {
            Recorded a = new Recorded(DEFAULTS);
            assertThat(a.endpoint.sendPacket(new byte[0], 0, 0)).isEqualTo(-1);
            assertThat(a.sent).isEmpty();
            assertThat(a.endpoint.nextPacketSequence()).isZero();
            assertThat(a.endpoint.counter(PacketCounter.NUM_EMPTY_PAYLOADS_NOT_SENT)).isEqualTo(1);
            assertThat(a.endpoint.counter(PacketCounter.NUM_PACKETS_SENT)).isZero();
        }

        @Test
        void emptyPayloadSendsAHeaderOnlyPacketWhenAllowedAndItCarriesAcks() {
            ReliableConfig config = DEFAULTS.toBuilder().allowEmptyPayload(true).build();
            Recorded a = new Recorded(config);
            Recorded b = new Recorded(config);
            a.send(10);
            b.receive(a.drain().get(0));
            assertThat(b.endpoint.sendPacket(new byte[0], 0, 0)).isZero();
            byte[] ackOnly = b.drain().get(0);
            assertThat(HEX.formatHex(ackOnly)).isEqualTo("3e00000001000000"); // seq 0, ack 0, ack_bits 0x00000001
            assertThat(a.receive(ackOnly)).isEqualTo(ReceiveOutcome.DELIVERED);
            assertThat(a.processedPayloads.get(0)).isEmpty();
            assertThat(a.acks()).containsExactly(0);
        }

        @Test
        void rangeOutsideTheArrayIsACallerError() {
            Recorded a = new Recorded(DEFAULTS);
            assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> a.endpoint.sendPacket(new byte[4], 2, 3));
            assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> a.endpoint.receivePacket(new byte[4], -1, 2));
        }
    }

    @Nested
    class RegularRejections {
        private final Recorded b = new Recorded(DEFAULTS);

        @Test
        void emptyDatagramIsDroppedAndCounted() {
            assertThat(b.endpoint.receivePacket(new byte[0], 0, 0)).isEqualTo(ReceiveOutcome.EMPTY_DATAGRAM);
            assertThat(b.endpoint.counter(PacketCounter.NUM_EMPTY_DATAGRAMS_RECEIVED)).isEqualTo(1);
            assertThat(b.endpoint.counter(PacketCounter.NUM_PACKETS_RECEIVED)).isZero();
        }

        @Test
        void truncatedHeadersAreInvalid() {
            for (String hex : List.of("00", "0000", "200000", "00000000", "3e00000000")) {
                assertThat(b.receive(HEX.parseHex(hex))).as(hex).isEqualTo(ReceiveOutcome.INVALID_PACKET_HEADER);
            }
            assertThat(b.endpoint.counter(PacketCounter.NUM_PACKETS_INVALID)).isEqualTo(5);
            assertThat(b.endpoint.counter(PacketCounter.NUM_PACKETS_RECEIVED)).isEqualTo(5);
        }

        @Test
        void datagramLongerThanMaxPacketSizePlus14IsTooLarge() {
            assertThat(b.receive(new byte[16384 + 15])).isEqualTo(ReceiveOutcome.TOO_LARGE_TO_RECEIVE_DATAGRAM);
            assertThat(b.endpoint.counter(PacketCounter.NUM_PACKETS_TOO_LARGE_TO_RECEIVE)).isEqualTo(1);
            assertThat(b.endpoint.counter(PacketCounter.NUM_PACKETS_RECEIVED)).isZero();
        }

        @Test
        void payloadLongerThanMaxPacketSizeIsTooLarge() {
            assertThat(b.receive(regular(0, 0, -1, new byte[16385]))).isEqualTo(ReceiveOutcome.TOO_LARGE_TO_RECEIVE_PAYLOAD);
            assertThat(b.receive(regular(1, 0, -1, new byte[16384]))).isEqualTo(ReceiveOutcome.DELIVERED);
            assertThat(b.endpoint.counter(PacketCounter.NUM_PACKETS_TOO_LARGE_TO_RECEIVE)).isEqualTo(1);
        }

        @Test
        void olderThanTheReceivedWindowIsStale() {
            assertThat(b.receive(regular(300, 0, 0, new byte[4]))).isEqualTo(ReceiveOutcome.DELIVERED);
            assertThat(b.receive(regular(45, 0, 0, new byte[4]))).isEqualTo(ReceiveOutcome.DELIVERED);
            assertThat(b.receive(regular(44, 0, 0, new byte[4]))).isEqualTo(ReceiveOutcome.STALE);
            assertThat(b.endpoint.counter(PacketCounter.NUM_PACKETS_STALE)).isEqualTo(1);
        }

        @Test
        void sameSequenceTwiceIsDuplicate() {
            byte[] packet = regular(7, 0, 0, new byte[4]);
            assertThat(b.receive(packet)).isEqualTo(ReceiveOutcome.DELIVERED);
            assertThat(b.receive(packet)).isEqualTo(ReceiveOutcome.DUPLICATE);
            assertThat(b.processedSequences).containsExactly(7);
            assertThat(b.endpoint.counter(PacketCounter.NUM_PACKETS_DUPLICATE)).isEqualTo(1);
        }

        @Test
        void packetRejectedByTheProcessorIsNotRecordedNorAckedAndIsProcessedAgain() {
            b.accept = false;
            byte[] packet = regular(9, 0, 0, new byte[] {1});
            assertThat(b.receive(packet)).isEqualTo(ReceiveOutcome.REJECTED_BY_PROCESS_CALLBACK);
            assertThat(b.receive(packet)).isEqualTo(ReceiveOutcome.REJECTED_BY_PROCESS_CALLBACK);
            assertThat(b.endpoint.counter(PacketCounter.NUM_PACKETS_REJECTED_BY_PROCESSOR)).isEqualTo(2);
            b.send(1);
            byte[] reply = b.drain().get(0);
            assertThat(HEX.formatHex(reply, 0, 8)).isEqualTo("3e00000100000000"); // ack 65535, no bits: nothing recorded
            b.accept = true;
            assertThat(b.receive(packet)).isEqualTo(ReceiveOutcome.DELIVERED);
        }
    }

    @Nested
    class FragmentRejections {
        private final Recorded b = new Recorded(DEFAULTS);

        private void assertInvalid(byte[] datagram) {
            long before = b.endpoint.counter(PacketCounter.NUM_FRAGMENTS_INVALID);
            assertThat(b.receive(datagram)).isEqualTo(ReceiveOutcome.FRAGMENT_INVALID);
            assertThat(b.endpoint.counter(PacketCounter.NUM_FRAGMENTS_INVALID)).isEqualTo(before + 1);
            assertThat(b.endpoint.counter(PacketCounter.NUM_FRAGMENTS_RECEIVED)).isZero();
        }

        @Test
        void shorterThanTheFragmentHeader() {
            assertInvalid(HEX.parseHex("01000000"));
        }

        @Test
        void oddPrefixOtherThan1() {
            assertInvalid(HEX.parseHex("03000000010000"));
            assertInvalid(HEX.parseHex("ff0000000100"));
        }

        @Test
        void moreFragmentsThanMaxFragments() {
            assertInvalid(fragment(0, 1, 17, 0, 0, new byte[100]));
            assertInvalid(fragment(0, 1, 256, 0, 0, new byte[1024]));
        }

        @Test
        void fragmentIdNotBelowTheFragmentCount() {
            assertInvalid(fragment(0, 2, 2, 0, 0, new byte[100]));
            assertInvalid(fragment(0, 5, 2, 0, 0, new byte[100]));
        }

        @Test
        void embeddedHeaderUnreadable() {
            assertInvalid(HEX.parseHex("01000000013e"));
        }

        @Test
        void embeddedHeaderOfAnotherSequence() {
            byte[] f = fragment(5, 0, 2, 4, -1, new byte[1024]);
            f[6] = 6; // embedded sequence 6, fragment sequence 5
            assertInvalid(f);
        }

        @Test
        void embeddedHeaderNotCanonical() {
            byte[] data = new byte[1024];
            // an explicit 0xff ack_bits byte: readable, not canonical
            byte[] f = new byte[5 + 5 + 1024];
            System.arraycopy(HEX.parseHex("0105000001" + "22050001ff"), 0, f, 0, 10);
            System.arraycopy(data, 0, f, 10, 1024);
            assertInvalid(f);
            // a 16-bit ack that fits in 8 bits
            byte[] g = new byte[5 + 5 + 1024];
            System.arraycopy(HEX.parseHex("0105000001" + "0005000400"), 0, g, 0, 10);
            assertInvalid(g);
        }

        @Test
        void fragmentLongerThanFragmentSize() {
            assertInvalid(fragment(0, 1, 2, 0, 0, new byte[1025]));
        }

        @Test
        void fragmentOtherThanTheLastShorterThanFragmentSize() {
            assertInvalid(fragment(0, 0, 2, 65535, 0, new byte[1000]));
            assertInvalid(fragment(0, 1, 3, 0, 0, new byte[1023]));
        }

        @Test
        void fragmentCountDifferentFromTheFirstFragmentsOfThePacket() {
            assertThat(b.receive(fragment(3, 0, 4, 2, -1, new byte[1024])))
                    .isEqualTo(ReceiveOutcome.FRAGMENT_STORED_REASSEMBLY_INCOMPLETE);
            long before = b.endpoint.counter(PacketCounter.NUM_FRAGMENTS_INVALID);
            assertThat(b.receive(fragment(3, 1, 3, 0, 0, new byte[1024]))).isEqualTo(ReceiveOutcome.FRAGMENT_INVALID);
            assertThat(b.endpoint.counter(PacketCounter.NUM_FRAGMENTS_INVALID)).isEqualTo(before + 1);
        }

        @Test
        void fragmentOlderThanTheReassemblyWindow() {
            assertThat(b.receive(regular(100, 0, 0, new byte[4]))).isEqualTo(ReceiveOutcome.DELIVERED);
            assertInvalid(fragment(30, 1, 2, 0, 0, new byte[10]));
        }

        @Test
        void fragmentReceivedTwiceIsIgnoredSilently() {
            byte[] f = fragment(3, 1, 3, 0, 0, new byte[1024]);
            assertThat(b.receive(f)).isEqualTo(ReceiveOutcome.FRAGMENT_STORED_REASSEMBLY_INCOMPLETE);
            assertThat(b.receive(f)).isEqualTo(ReceiveOutcome.FRAGMENT_IGNORED_SILENTLY);
            assertThat(b.endpoint.counter(PacketCounter.NUM_FRAGMENTS_RECEIVED)).isEqualTo(1);
            assertThat(b.endpoint.counter(PacketCounter.NUM_FRAGMENTS_INVALID)).isZero();
        }

        @Test
        void fragmentOfAPacketAlreadyReceivedIsIgnoredSilently() {
            Recorded a = new Recorded(DEFAULTS);
            a.send(1500);
            List<byte[]> fragments = a.drain();
            assertThat(b.receive(fragments.get(0))).isEqualTo(ReceiveOutcome.FRAGMENT_STORED_REASSEMBLY_INCOMPLETE);
            assertThat(b.receive(fragments.get(1))).isEqualTo(ReceiveOutcome.FRAGMENT_STORED_PACKET_REASSEMBLED_AND_DELIVERED);
            assertThat(b.processedPayloads.get(0)).isEqualTo(payload(1500, 0));
            assertThat(b.receive(fragments.get(1))).isEqualTo(ReceiveOutcome.FRAGMENT_IGNORED_SILENTLY);
            assertThat(b.receive(fragments.get(0))).isEqualTo(ReceiveOutcome.FRAGMENT_IGNORED_SILENTLY);
            assertThat(b.processedSequences).containsExactly(0);
        }

        @Test
        void reassembledPacketTooLargeForTheReceiver() {
            Recorded small = new Recorded(DEFAULTS.toBuilder().maxPacketSize(2048).build());
            Recorded a = new Recorded(DEFAULTS);
            a.send(3000);
            List<ReceiveOutcome> outcomes = new ArrayList<>();
            for (byte[] f : a.drain()) {
                outcomes.add(small.receive(f));
            }
            assertThat(outcomes).last().isEqualTo(ReceiveOutcome.FRAGMENT_STORED_PACKET_REASSEMBLED_BUT_TOO_LARGE_TO_RECEIVE);
            assertThat(small.endpoint.counter(PacketCounter.NUM_PACKETS_TOO_LARGE_TO_RECEIVE)).isEqualTo(1);
            assertThat(small.processedSequences).isEmpty();
        }

        @Test
        void reassembledPacketRejectedByTheProcessorCanBeReassembledAgain() {
            Recorded a = new Recorded(DEFAULTS);
            a.send(2500);
            List<byte[]> fragments = a.drain();
            b.accept = false;
            ReceiveOutcome last = null;
            for (byte[] f : fragments) {
                last = b.receive(f);
            }
            assertThat(last).isEqualTo(ReceiveOutcome.FRAGMENT_STORED_PACKET_REASSEMBLED_BUT_REJECTED_BY_PROCESS_CALLBACK);
            b.accept = true;
            for (byte[] f : fragments) {
                last = b.receive(f);
            }
            assertThat(last).isEqualTo(ReceiveOutcome.FRAGMENT_STORED_PACKET_REASSEMBLED_AND_DELIVERED);
            assertThat(b.processedPayloads.get(1)).isEqualTo(payload(2500, 0));
        }

        @Test
        void fragmentsInAnyOrderReassembleTheSamePayload() {
            Recorded a = new Recorded(DEFAULTS);
            a.send(16384);
            List<byte[]> fragments = a.drain();
            assertThat(fragments).hasSize(16);
            java.util.Collections.reverse(fragments);
            ReceiveOutcome last = null;
            for (byte[] f : fragments) {
                last = b.receive(f);
            }
            assertThat(last).isEqualTo(ReceiveOutcome.FRAGMENT_STORED_PACKET_REASSEMBLED_AND_DELIVERED);
            assertThat(b.processedPayloads.get(0)).isEqualTo(payload(16384, 0));
        }
    }

    /** {@link ReliableConfig#fullAckBitsAtStart()}: the message layer's setting, off in the reference. */
    @Nested
    class FullAckBitsAtStart {

        private final ReliableConfig primed = DEFAULTS.toBuilder().fullAckBitsAtStart(true).build();

        /** Header bytes of the regular packet {@code datagram} carrying {@code payload} bytes. */
        private int header(byte[] datagram, int payload) {
            return datagram.length - payload;
        }

        @Test
        void headersAreFourBytesFromTheFirstPacketWhereTheReferenceGrowsThemFromEight() {
            Recorded a = new Recorded(primed);
            Recorded plainA = new Recorded(DEFAULTS);
            Recorded b = new Recorded(DEFAULTS);
            Recorded plainB = new Recorded(DEFAULTS);
            // a and plainA answer every packet of b's (and plainB's): 40 in a row, none lost
            for (int i = 0; i < 40; i++) {
                a.send(10);
                plainA.send(10);
                byte[] sent = a.drain().get(0);
                byte[] reference = plainA.drain().get(0);
                assertThat(header(sent, 10)).as("packet %d", i).isEqualTo(4);
                assertThat(header(reference, 10)).as("packet %d", i).isEqualTo(8 - Math.min(4, i / 8));
                assertThat(b.receive(sent)).isEqualTo(ReceiveOutcome.DELIVERED);
                assertThat(plainB.receive(reference)).isEqualTo(ReceiveOutcome.DELIVERED);
                b.send(10);
                plainB.send(10);
                a.receive(b.drain().get(0));
                plainA.receive(plainB.drain().get(0));
            }
            // the peer found no packet of its own under the bits of 65504..65535: it acked what it sent
            assertThat(b.acks()).containsExactlyElementsOf(plainB.acks());
            assertThat(b.endpoint.counter(PacketCounter.NUM_PACKETS_ACKED))
                    .isEqualTo(plainB.endpoint.counter(PacketCounter.NUM_PACKETS_ACKED)).isEqualTo(39);
        }

        @Test
        void aPacketOfThePeersThatWasLostStaysUnacknowledgedEarlyAndAfterTheSequencesWrap() {
            Recorded a = new Recorded(primed);
            Recorded b = new Recorded(DEFAULTS);
            // b's packet 1 is lost: a's next header acks 0 and 2, and the bits before 0, not 1
            for (int i = 0; i < 3; i++) {
                b.send(10);
                byte[] d = b.drain().get(0);
                if (i != 1) {
                    a.receive(d);
                }
            }
            a.send(10);
            b.receive(a.drain().get(0));
            assertThat(b.acks()).containsExactlyInAnyOrder(0, 2);
            b.endpoint.clearAcks();
            // once b's sequences wrap, 65504..65535 are real packets: b's packet 65510 is lost and stays so
            for (int seq = 3; seq < 65536 + 5; seq++) {
                b.send(10);
                byte[] d = b.drain().get(0);
                if (seq != 65510) {
                    a.receive(d);
                }
                if ((seq & 0xFF) == 0 || seq > 65536) {
                    a.send(10);
                    b.receive(a.drain().get(0));
                }
                b.endpoint.clearAcks();
                if (seq == 65520) {
                    a.send(10);
                    b.receive(a.drain().get(0));
                    assertThat(b.acks()).contains(65509, 65511).doesNotContain(65510);
                }
            }
        }

        @Test
        void anEndThatSentNothingUntilThePeersSequencesWrappedAcksOnlyWhatArrived() {
            Recorded a = new Recorded(primed);
            Recorded b = new Recorded(DEFAULTS);
            for (int seq = 0; seq < 65536 + 5; seq++) {
                b.send(10);
                byte[] d = b.drain().get(0);
                if (seq != 65510) {
                    a.receive(d);
                }
                if (seq == 65520) {
                    a.send(10); // a's first packet
                    b.receive(a.drain().get(0));
                    assertThat(b.acks()).contains(65509, 65511).doesNotContain(65510);
                }
            }
        }
    }

    @Nested
    class Acks {

        @Test
        void acksFlowBothWaysAndRttIsSampled() {
            Recorded a = new Recorded(DEFAULTS, 100.0);
            Recorded b = new Recorded(DEFAULTS, 100.0);
            double time = 100.0;
            for (int i = 0; i < 20; i++) {
                time += 0.01;
                a.endpoint.update(time);
                b.endpoint.update(time);
                a.send(50);
                b.send(50);
                for (byte[] d : a.drain()) {
                    b.receive(d);
                }
                for (byte[] d : b.drain()) {
                    a.receive(d);
                }
            }
            assertThat(a.acks()).hasSize(19).doesNotHaveDuplicates(); // each side sends before it hears the other
            assertThat(b.acks()).hasSize(19).doesNotHaveDuplicates();
            assertThat(a.endpoint.counter(PacketCounter.NUM_PACKETS_ACKED)).isEqualTo(19);
            assertThat(a.endpoint.rtt()).isGreaterThan(0f);
            assertThat(a.endpoint.rttMin()).isGreaterThan(0f);
            assertThat(a.endpoint.packetLoss()).isZero();
            a.endpoint.clearAcks();
            assertThat(a.endpoint.ackCount()).isZero();
            assertThatExceptionOfType(IndexOutOfBoundsException.class).isThrownBy(() -> a.endpoint.ack(0));
        }

        @Test
        void rttListenerSeesOneSamplePerAckedPacketAndTheSmoothedRttFollowsThem() {
            Recorded a = new Recorded(DEFAULTS, 100.0);
            Recorded b = new Recorded(DEFAULTS, 100.0);
            List<Integer> sequences = new ArrayList<>();
            List<Float> samples = new ArrayList<>();
            a.endpoint.setRttListener((sequence, rttMillis) -> {
                sequences.add(sequence);
                samples.add(rttMillis);
            });
            double time = 100.0;
            for (int i = 0; i < 20; i++) {
                time += 0.01;
                a.endpoint.update(time);
                b.endpoint.update(time);
                a.send(50);
                b.send(50);
                for (byte[] d : a.drain()) {
                    b.receive(d);
                }
                for (byte[] d : b.drain()) {
                    a.receive(d);
                }
            }
            // each of a's packets is acked by b's next one, 10 ms later
            assertThat(sequences).containsExactlyElementsOf(a.acks());
            assertThat(samples).hasSize(19).allSatisfy(ms -> assertThat(ms).isCloseTo(10.0f, within(0.01f)));
            assertThat(a.endpoint.rtt()).isCloseTo(10.0f, within(0.01f));
        }

        @Test
        void listenerSeesEveryAckOnceInListOrderEvenWhenTheListIsFull() {
            ReliableConfig small = DEFAULTS.toBuilder().ackBufferSize(4).build();
            Recorded a = new Recorded(small);
            Recorded b = new Recorded(small);
            List<Integer> heard = new ArrayList<>();
            a.endpoint.setAckListener(heard::add);
            for (int i = 0; i < 10; i++) {
                a.send(10);
                b.receive(a.drain().get(0));
            }
            b.send(10);
            a.receive(b.drain().get(0));
            assertThat(heard).containsExactly(9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
            assertThat(a.acks()).containsExactly(9, 8, 7, 6);
            assertThat(a.endpoint.counter(PacketCounter.NUM_PACKETS_ACKED)).isEqualTo(10);
            assertThat(a.endpoint.counter(PacketCounter.NUM_ACKS_NOT_LISTED)).isEqualTo(6);
        }

        @Test
        void withoutListenerAFullListDropsTheAckAndALaterHeaderAcksIt() {
            ReliableConfig small = DEFAULTS.toBuilder().ackBufferSize(4).build();
            Recorded a = new Recorded(small);
            Recorded b = new Recorded(small);
            for (int i = 0; i < 10; i++) {
                a.send(10);
                b.receive(a.drain().get(0));
            }
            b.send(10);
            a.receive(b.drain().get(0));
            assertThat(a.acks()).containsExactly(9, 8, 7, 6);
            assertThat(a.endpoint.counter(PacketCounter.NUM_PACKETS_ACKED)).isEqualTo(4);
            a.endpoint.clearAcks();
            b.send(10);
            a.receive(b.drain().get(0));
            assertThat(a.acks()).containsExactly(5, 4, 3, 2);
        }

        @Test
        void ackOfASequenceNeverSentIsIgnored() {
            Recorded b = new Recorded(DEFAULTS);
            assertThat(b.receive(regular(0, 500, -1, new byte[3]))).isEqualTo(ReceiveOutcome.DELIVERED);
            assertThat(b.endpoint.ackCount()).isZero();
            assertThat(b.endpoint.counter(PacketCounter.NUM_PACKETS_ACKED)).isZero();
        }
    }

    @Test
    void resetStartsSequencesAndCountersAgainButKeepsStatistics() {
        Recorded a = new Recorded(DEFAULTS);
        Recorded b = new Recorded(DEFAULTS);
        a.send(10);
        b.receive(a.drain().get(0));
        a.endpoint.update(100.5);
        b.send(10);
        a.receive(b.drain().get(0));
        a.endpoint.update(101.0);
        float rtt = a.endpoint.rtt();
        assertThat(rtt).isGreaterThan(0f);
        a.endpoint.reset();
        assertThat(a.endpoint.nextPacketSequence()).isZero();
        assertThat(a.endpoint.ackCount()).isZero();
        for (PacketCounter c : PacketCounter.values()) {
            assertThat(a.endpoint.counter(c)).as(c.referenceName()).isZero();
        }
        assertThat(a.endpoint.rtt()).isEqualTo(rtt);
        a.send(10);
        assertThat(HEX.formatHex(a.drain().get(0), 0, 8)).isEqualTo("3e00000100000000");
    }

    @Test
    void referenceCountersComeFirstInReferenceOrder() {
        List<String> names = Arrays.stream(PacketCounter.values()).filter(PacketCounter::isReference)
                .map(PacketCounter::referenceName).toList();
        assertThat(names).containsExactly("num_packets_sent", "num_packets_received", "num_packets_acked",
                "num_packets_stale", "num_packets_invalid", "num_packets_too_large_to_send",
                "num_packets_too_large_to_receive", "num_fragments_sent", "num_fragments_received",
                "num_fragments_invalid", "num_packets_duplicate");
        assertThat(PacketCounter.values()[PacketCounter.REFERENCE_COUNT].isReference()).isFalse();
    }
}
