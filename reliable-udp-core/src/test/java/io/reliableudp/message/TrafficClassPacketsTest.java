package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.TrafficClass;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A packet carries the frames of channels of one traffic class only, and its sender is told that
 * class around it: two endpoints joined directly, the sender's packets recorded with the class in
 * force when each went, then fed to the receiver one at a time to see which channels each carried.
 */
class TrafficClassPacketsTest {

    private record Packet(int tos, byte[] bytes) {
    }

    /** Records each packet with the class its sender was told last. */
    private static final class RecordingSender implements DatagramSender {
        final List<Packet> packets = new ArrayList<>();
        final List<Integer> calls = new ArrayList<>();
        int tos = NODE_CLASS;

        @Override
        public void send(byte[] data, int offset, int length) {
            packets.add(new Packet(tos, Arrays.copyOfRange(data, offset, offset + length)));
        }

        @Override
        public void trafficClass(int tos) {
            this.tos = tos;
            calls.add(tos);
        }
    }

    @Test
    void channelsOfDifferentClassesNeverShareAPacketAndOnlyTheOverridingChannelsPacketsCarryItsClass() {
        MessageConfig config = MessageConfig.builder().channels(List.of(
                ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED),
                ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED).trafficClass(TrafficClass.EF).redundancy(2),
                ChannelConfig.of(DeliveryMode.UNRELIABLE),
                ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED).trafficClass(TrafficClass.CS1))).build();
        int ef = TrafficClass.EF.tos();
        int cs1 = TrafficClass.CS1.tos();
        double time = 10;
        RecordingSender toB = new RecordingSender();
        RecordingSender toA = new RecordingSender();
        Set<Integer> carried = new TreeSet<>();
        MessageEndpoint a = new MessageEndpoint(config, time, toB, (c, id, d, o, l) -> { });
        MessageEndpoint b = new MessageEndpoint(config, time, toA, (c, id, d, o, l) -> carried.add(c));
        // plus one unreliable message too large for a packet: it goes in fragments of the node's class
        a.offer(2, new byte[3_000]);
        for (int round = 0; round < 20; round++) {
            for (int i = 0; i < 40; i++) {
                for (int ch = 0; ch < 4; ch++) {
                    a.offer(ch, new byte[] {(byte) ch, (byte) i});
                }
            }
            time += 0.01;
            a.flush(time);
            List<Integer> efPackets = new ArrayList<>();
            for (Packet p : toB.packets) {
                carried.clear();
                b.receive(p.bytes, 0, p.bytes.length, time);
                if (p.tos == ef) {
                    efPackets.add(1);
                    assertThat(carried).as("an EF packet").isSubsetOf(Set.of(1));
                } else if (p.tos == cs1) {
                    assertThat(carried).as("a CS1 packet").isSubsetOf(Set.of(3));
                } else {
                    assertThat(p.tos).isEqualTo(DatagramSender.NODE_CLASS);
                    assertThat(carried).as("a packet of the node's class").isSubsetOf(Set.of(0, 2));
                }
            }
            assertThat(efPackets).as("EF packets in round " + round).isNotEmpty();
            toB.packets.clear();
            b.update(time);
            for (Packet p : toA.packets) {
                a.receive(p.bytes, 0, p.bytes.length, time);
            }
            toA.packets.clear();
        }
        assertThat(toB.calls).as("every class set is reset to the node's right after its packet").isNotEmpty();
        for (int i = 0; i < toB.calls.size(); i += 2) {
            assertThat(toB.calls.get(i)).isIn(ef, cs1);
            assertThat(toB.calls.get(i + 1)).isEqualTo(DatagramSender.NODE_CLASS);
        }
        assertThat(toA.calls).as("acks: the node's class, never set").isEmpty();
        assertThat(a.stats().channels().get(0).messagesAcked()).isEqualTo(800);
        assertThat(a.stats().channels().get(1).messagesAcked()).isEqualTo(800);
        assertThat(a.stats().channels().get(3).messagesAcked()).isEqualTo(800);
    }

    @Test
    void withoutChannelClassesTheSenderIsNeverTold() {
        RecordingSender sender = new RecordingSender();
        MessageEndpoint a = new MessageEndpoint(MessageConfig.defaults(), 1, sender, (c, id, d, o, l) -> { });
        for (int i = 0; i < 100; i++) {
            a.offer(0, new byte[40]);
        }
        a.flush(1.01);
        assertThat(sender.packets).isNotEmpty();
        assertThat(sender.calls).isEmpty();
    }
}
