package io.reliableudp.packet;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * No datagram content makes the endpoint throw, and no allocation is sized by what a datagram claims.
 */
class HostileInputTest {

    /** An endpoint that already talks to a peer: windows, reassembly and acks hold state. */
    private static ReliableEndpoint endpointWithHistory(List<byte[]> validDatagrams, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        ReliableEndpoint receiver = new ReliableEndpoint(ReliableConfig.defaults(), 0.0, (s, d, o, l) -> { },
                (s, d, o, l) -> true);
        ReliableEndpoint sender = new ReliableEndpoint(ReliableConfig.defaults(), 0.0,
                (s, d, o, l) -> validDatagrams.add(java.util.Arrays.copyOfRange(d, o, o + l)), (s, d, o, l) -> true);
        for (int i = 0; i < 40; i++) {
            int length = 1 + random.nextInt(i % 5 == 0 ? 5000 : 300);
            receiver.sendPacket(new byte[length], 0, length);
            sender.sendPacket(new byte[length], 0, length);
        }
        for (int i = 0; i < validDatagrams.size(); i += 2) {
            byte[] d = validDatagrams.get(i);
            receiver.receivePacket(d, 0, d.length);
        }
        return receiver;
    }

    @Property(tries = 2000)
    void randomBytesNeverThrow(@ForAll @Size(max = 1200) byte[] datagram, @ForAll long seed) {
        List<byte[]> valid = new ArrayList<>();
        ReliableEndpoint endpoint = endpointWithHistory(valid, seed);
        assertThat(endpoint.receivePacket(datagram, 0, datagram.length)).isNotNull();
        // the same bytes as a fragment, and as a regular packet
        if (datagram.length > 0) {
            datagram[0] = 1;
            assertThat(endpoint.receivePacket(datagram, 0, datagram.length)).isNotNull();
            datagram[0] = (byte) (datagram[0] & 0xFE);
            assertThat(endpoint.receivePacket(datagram, 0, datagram.length)).isNotNull();
        }
    }

    @Property(tries = 500)
    void mutatedValidDatagramsNeverThrow(@ForAll long seed, @ForAll @IntRange(min = 1, max = 8) int mutations) {
        List<byte[]> valid = new ArrayList<>();
        ReliableEndpoint endpoint = endpointWithHistory(valid, seed);
        SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        for (byte[] original : valid) {
            byte[] d = original.clone();
            int length = d.length;
            for (int m = 0; m < mutations; m++) {
                switch (random.nextInt(5)) {
                    case 0 -> d[random.nextInt(d.length)] ^= (byte) (1 << random.nextInt(8));
                    case 1 -> length = random.nextInt(length + 1);
                    case 2 -> d[random.nextInt(Math.min(d.length, 5))] = (byte) random.nextInt(256);
                    case 3 -> d[0] = 1;
                    default -> {
                        byte[] longer = java.util.Arrays.copyOf(d, d.length + random.nextInt(1, 64));
                        d = longer;
                        length = d.length;
                    }
                }
            }
            assertThat(endpoint.receivePacket(d, 0, length)).isNotNull();
            // also in the middle of a larger buffer
            byte[] framed = new byte[length + 10];
            System.arraycopy(d, 0, framed, 5, length);
            assertThat(endpoint.receivePacket(framed, 5, length)).isNotNull();
        }
    }

    private static long rawAllocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    /** What one reading of the allocation counter allocates itself (the MXBean call boxes a little). */
    private static final long READING_COST;

    static {
        long cost = Long.MAX_VALUE;
        for (int i = 0; i < 20; i++) {
            long a = rawAllocatedBytes();
            long b = rawAllocatedBytes();
            cost = Math.min(cost, b - a);
        }
        READING_COST = cost;
    }

    /** Bytes allocated by this thread so far, less the cost of reading them. */
    private static long allocatedBytes() {
        return rawAllocatedBytes() - READING_COST;
    }

    @Test
    void reassemblyMemoryIsSizedByTheConfigurationNotByTheClaimedFragmentCount() {
        ReliableConfig config = ReliableConfig.defaults().toBuilder().maxFragments(4).fragmentSize(1024).build();
        ReliableEndpoint endpoint = new ReliableEndpoint(config, 0.0, (s, d, o, l) -> { }, (s, d, o, l) -> true);
        byte[] claims256 = TestLink.fragment(10, 1, 256, 0, 0, new byte[100]);
        byte[] claims2 = TestLink.fragment(11, 1, 2, 0, 0, new byte[100]);
        byte[] claims4 = TestLink.fragment(12, 1, 4, 0, 0, new byte[1024]);
        // run each path once first (class loading, logger initialisation), on a sequence far away
        byte[] warmInvalid = TestLink.fragment(40000, 1, 256, 0, 0, new byte[100]);
        endpoint.receivePacket(warmInvalid, 0, warmInvalid.length);
        byte[] warmStored = TestLink.fragment(9, 1, 2, 0, 0, new byte[100]);
        endpoint.receivePacket(warmStored, 0, warmStored.length);
        long before = rawAllocatedBytes();
        ReceiveOutcome outcome256 = endpoint.receivePacket(claims256, 0, claims256.length);
        long invalid = allocatedBytes() - before;
        before = rawAllocatedBytes();
        ReceiveOutcome outcome2 = endpoint.receivePacket(claims2, 0, claims2.length);
        long two = allocatedBytes() - before;
        before = rawAllocatedBytes();
        ReceiveOutcome outcome4 = endpoint.receivePacket(claims4, 0, claims4.length);
        long four = allocatedBytes() - before;
        assertThat(outcome256).isEqualTo(ReceiveOutcome.FRAGMENT_INVALID);
        assertThat(outcome2).isEqualTo(ReceiveOutcome.FRAGMENT_STORED_REASSEMBLY_INCOMPLETE);
        assertThat(outcome4).isEqualTo(ReceiveOutcome.FRAGMENT_STORED_REASSEMBLY_INCOMPLETE);
        int slotBytes = 9 + 4 * 1024;
        assertThat(invalid).as("bytes allocated for a fragment claiming 256 fragments").isLessThan(64);
        assertThat(two).as("bytes allocated for a first fragment claiming 2 fragments").isBetween((long) slotBytes, slotBytes + 64L);
        assertThat(four).as("bytes allocated for a first fragment claiming 4 fragments").isBetween((long) slotBytes, slotBytes + 64L);
        // a slot already allocated is reused
        byte[] again = TestLink.fragment(11 + 64, 1, 3, 0, 0, new byte[1024]);
        before = rawAllocatedBytes();
        endpoint.receivePacket(again, 0, again.length);
        assertThat(allocatedBytes() - before).as("bytes allocated when a reassembly slot is reused").isLessThan(64);
    }

    @Test
    void steadyStateExchangeAllocatesNothing() {
        byte[] small = new byte[100];
        byte[] large = new byte[4000];
        ReliableEndpoint[] pair = new ReliableEndpoint[2];
        pair[0] = new ReliableEndpoint(ReliableConfig.defaults(), 0.0, (s, d, o, l) -> pair[1].receivePacket(d, o, l),
                (s, d, o, l) -> true);
        pair[1] = new ReliableEndpoint(ReliableConfig.defaults(), 0.0, (s, d, o, l) -> pair[0].receivePacket(d, o, l),
                (s, d, o, l) -> true);
        double time = 0.0;
        for (int round = 0; round < 2; round++) {
            long before = rawAllocatedBytes();
            for (int i = 0; i < 5000; i++) {
                time += 0.001;
                pair[0].update(time);
                pair[1].update(time);
                byte[] payload = i % 4 == 0 ? large : small;
                pair[0].sendPacket(payload, 0, payload.length);
                pair[1].sendPacket(payload, 0, payload.length);
                pair[0].clearAcks();
                pair[1].clearAcks();
            }
            long allocated = allocatedBytes() - before;
            if (round == 1) {
                // round 0 allocated the 64 reassembly slots of each side; round 1 must allocate nothing
                assertThat(allocated).as("bytes allocated by 5000 steady-state exchanges").isLessThan(1024);
            }
        }
        assertThat(pair[0].counter(PacketCounter.NUM_PACKETS_ACKED)).isGreaterThan(9000);
    }
}
