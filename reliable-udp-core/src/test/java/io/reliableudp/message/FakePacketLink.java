package io.reliableudp.message;

/**
 * A private test double of the packet layer with the same contract as {@code ReliableEndpoint}:
 * 8-byte header (sequence u16, ack u16, ack bits u32 where bit n acks {@code ack - n}), duplicate and
 * stale packets dropped, a rejected packet neither recorded nor acked, acks reported once each.
 * No fragmentation: a packet above the regular size goes out as one larger datagram.
 */
final class FakePacketLink implements PacketLink {

    private static final int RECEIVED = 256;

    private final Sizing sizing;
    private final Hooks hooks;
    private final byte[] out;
    private final int[] sentSeq;
    private final boolean[] sentValid;
    private final boolean[] sentAcked;
    private final int[] receivedSeq = new int[RECEIVED];
    private final boolean[] receivedValid = new boolean[RECEIVED];
    private int sequence;
    private int newestReceived = 0xFFFF;
    private boolean anyReceived;

    FakePacketLink(double time, Sizing sizing, Hooks hooks) {
        this.sizing = sizing;
        this.hooks = hooks;
        this.out = new byte[8 + sizing.fragmentSize() * sizing.maxFragments() + 64];
        this.sentSeq = new int[sizing.sentPacketsBufferSize()];
        this.sentValid = new boolean[sizing.sentPacketsBufferSize()];
        this.sentAcked = new boolean[sizing.sentPacketsBufferSize()];
    }

    @Override
    public int sendPacket(byte[] data, int offset, int length) {
        if (length > out.length - 8) {
            return -1;
        }
        int seq = sequence;
        sequence = (sequence + 1) & 0xFFFF;
        int slot = seq % sentSeq.length;
        sentSeq[slot] = seq;
        sentValid[slot] = true;
        sentAcked[slot] = false;
        int ackBits = 0;
        for (int n = 0; n < 32; n++) {
            int s = (newestReceived - n) & 0xFFFF;
            int r = s % RECEIVED;
            if (receivedValid[r] && receivedSeq[r] == s) {
                ackBits |= 1 << n;
            }
        }
        out[0] = (byte) seq;
        out[1] = (byte) (seq >>> 8);
        out[2] = (byte) newestReceived;
        out[3] = (byte) (newestReceived >>> 8);
        out[4] = (byte) ackBits;
        out[5] = (byte) (ackBits >>> 8);
        out[6] = (byte) (ackBits >>> 16);
        out[7] = (byte) (ackBits >>> 24);
        System.arraycopy(data, offset, out, 8, length);
        hooks.transmit(out, 0, 8 + length);
        return seq;
    }

    @Override
    public void receivePacket(byte[] data, int offset, int length) {
        if (length < 8) {
            return;
        }
        int seq = (data[offset] & 0xFF) | (data[offset + 1] & 0xFF) << 8;
        int ack = (data[offset + 2] & 0xFF) | (data[offset + 3] & 0xFF) << 8;
        int ackBits = (data[offset + 4] & 0xFF) | (data[offset + 5] & 0xFF) << 8
                | (data[offset + 6] & 0xFF) << 16 | (data[offset + 7] & 0xFF) << 24;
        if (anyReceived && ((newestReceived - seq) & 0xFFFF) < 32768 && ((newestReceived - seq) & 0xFFFF) >= RECEIVED) {
            return; // stale
        }
        int r = seq % RECEIVED;
        if (receivedValid[r] && receivedSeq[r] == seq) {
            return; // duplicate
        }
        if (!hooks.process(seq, data, offset + 8, length - 8)) {
            return;
        }
        if (!anyReceived || ((seq - newestReceived) & 0xFFFF) < 32768) {
            // clear received slots skipped over
            if (anyReceived) {
                int d = (seq - newestReceived) & 0xFFFF;
                for (int k = 1; k < Math.min(d, RECEIVED); k++) {
                    receivedValid[(newestReceived + k) % RECEIVED & 0xFF] = false;
                }
            }
            newestReceived = seq;
            anyReceived = true;
        }
        receivedValid[r] = true;
        receivedSeq[r] = seq;
        for (int n = 0; n < 32; n++) {
            if ((ackBits & (1 << n)) == 0) {
                continue;
            }
            int s = (ack - n) & 0xFFFF;
            int slot = s % sentSeq.length;
            if (sentValid[slot] && sentSeq[slot] == s && !sentAcked[slot]) {
                sentAcked[slot] = true;
                hooks.acked(s);
            }
        }
    }

    @Override
    public void update(double time) {
    }

    @Override
    public int nextPacketSequence() {
        return sequence;
    }
}
