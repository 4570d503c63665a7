package io.reliableudp.packet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The packet layer's in-place send ({@link ReliableEndpoint#sendPacket(ByteBuffer, int, int)}) against
 * its copying send ({@link ReliableEndpoint#sendPacket(byte[], int, int)}): two endpoints with one
 * configuration get the same payloads (one through each API, in heap and direct buffers, with random
 * room around the payload) and the same received packets from a peer (so their acks and ack bits
 * wander), and must put exactly the same datagrams on the wire, return the same sequences and count
 * the same. Fragmented payloads included (the in-place API sends those through the copying path).
 */
class InPlaceSendPropertyTest {

    private static final ReliableConfig CONFIG = ReliableConfig.builder()
            .fragmentAbove(300).fragmentSize(256).maxFragments(8).maxPacketSize(8 * 256)
            .allowEmptyPayload(true).build();

    @Property(tries = 300)
    void theInPlaceSendPutsTheSameDatagramsOnTheWireAsTheCopyingSend(@ForAll long seed,
            @ForAll @IntRange(min = 1, max = 200) int steps) {
        SplittableRandom random = new SplittableRandom(seed);
        List<byte[]> copied = new ArrayList<>();
        List<byte[]> inPlace = new ArrayList<>();
        List<byte[]> fromPeer = new ArrayList<>();
        ReliableEndpoint copying = new ReliableEndpoint(CONFIG, 0, (s, d, o, l) -> copied.add(slice(d, o, l)), (s, d, o, l) -> true);
        ReliableEndpoint writing = new ReliableEndpoint(CONFIG, 0, new PacketTransmitter() {
            @Override
            public void transmit(int sequence, byte[] data, int offset, int length) {
                inPlace.add(slice(data, offset, length)); // fragments
            }

            @Override
            public void transmit(int sequence, ByteBuffer buffer, int offset, int length) {
                byte[] b = new byte[length];
                buffer.get(offset, b);
                inPlace.add(b);
            }
        }, (s, d, o, l) -> true);
        ReliableEndpoint peer = new ReliableEndpoint(CONFIG, 0, (s, d, o, l) -> fromPeer.add(slice(d, o, l)), (s, d, o, l) -> true);
        double time = 0;
        for (int step = 0; step < steps; step++) {
            time += random.nextDouble(0.05);
            copying.update(time);
            writing.update(time);
            peer.update(time);
            if (random.nextInt(3) == 0) {
                // the peer sends; both receive the same packets (some lost), so their ack state moves alike
                int size = random.nextInt(40);
                peer.sendPacket(new byte[size], 0, size);
                for (byte[] d : fromPeer) {
                    if (random.nextInt(5) != 0) {
                        copying.receivePacket(d, 0, d.length);
                        writing.receivePacket(d, 0, d.length);
                    }
                }
                fromPeer.clear();
                continue;
            }
            int length = switch (random.nextInt(6)) {
                case 0 -> 0;
                case 1 -> 301 + random.nextInt(8 * 256 - 300);   // fragmented
                case 2 -> 8 * 256 + 1 + random.nextInt(10);      // too large: refused by both
                default -> random.nextInt(301);
            };
            byte[] payload = new byte[length];
            random.nextBytes(payload);
            int front = 9 + random.nextInt(20);
            int back = random.nextInt(20);
            ByteBuffer buffer = random.nextBoolean() ? ByteBuffer.allocateDirect(front + length + back)
                    : ByteBuffer.allocate(front + length + back);
            buffer.put(front, payload);
            int a = copying.sendPacket(payload, 0, length);
            int b = writing.sendPacket(buffer, front, length);
            assertThat(b).isEqualTo(a);
            byte[] after = new byte[length];
            buffer.get(front, after);
            assertThat(after).as("the payload is left as it was").isEqualTo(payload);
            assertThat(buffer.position()).isZero();
            assertThat(buffer.limit()).isEqualTo(buffer.capacity());
        }
        assertThat(inPlace).hasSameSizeAs(copied);
        for (int i = 0; i < copied.size(); i++) {
            assertThat(inPlace.get(i)).as("datagram %d", i).isEqualTo(copied.get(i));
        }
        for (PacketCounter c : PacketCounter.values()) {
            assertThat(writing.counter(c)).as(c.name()).isEqualTo(copying.counter(c));
        }
        assertThat(writing.sentBandwidthKbps()).isEqualTo(copying.sentBandwidthKbps());
        assertThat(writing.packetLoss()).isEqualTo(copying.packetLoss());
    }

    @Test
    void theInPlaceSendNeedsRoomForTheLargestHeaderInFrontOfThePayload() {
        ReliableEndpoint e = new ReliableEndpoint(CONFIG, 0, (s, d, o, l) -> { }, (s, d, o, l) -> true);
        ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        assertThatThrownBy(() -> e.sendPacket(buffer, 8, 10)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("9 bytes of header room");
        assertThatThrownBy(() -> e.sendPacket(buffer, 9, 56)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThat(e.nextPacketSequence()).as("nothing was sent").isZero();
        assertThat(e.sendPacket(buffer, 9, 55)).isZero();
    }

    private static byte[] slice(byte[] d, int o, int l) {
        byte[] b = new byte[l];
        System.arraycopy(d, o, b, 0, l);
        return b;
    }
}
