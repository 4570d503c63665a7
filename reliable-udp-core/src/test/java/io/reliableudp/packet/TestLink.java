package io.reliableudp.packet;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Test helpers: an endpoint whose sent datagrams and processed payloads are recorded. */
final class TestLink {

    /** An endpoint with recorders. */
    static final class Recorded {
        final List<byte[]> sent = new ArrayList<>();
        final List<Integer> processedSequences = new ArrayList<>();
        final List<byte[]> processedPayloads = new ArrayList<>();
        final List<Integer> listened = new ArrayList<>();
        boolean accept = true;
        final ReliableEndpoint endpoint;

        Recorded(ReliableConfig config) {
            this(config, 100.0);
        }

        Recorded(ReliableConfig config, double time) {
            endpoint = new ReliableEndpoint(config, time,
                    (seq, data, off, len) -> sent.add(Arrays.copyOfRange(data, off, off + len)),
                    (seq, data, off, len) -> {
                        processedSequences.add(seq);
                        processedPayloads.add(Arrays.copyOfRange(data, off, off + len));
                        return accept;
                    });
        }

        ReceiveOutcome receive(byte[] datagram) {
            return endpoint.receivePacket(datagram, 0, datagram.length);
        }

        int send(int length) {
            return endpoint.sendPacket(payload(length, endpoint.nextPacketSequence()), 0, length);
        }

        List<byte[]> drain() {
            List<byte[]> copy = new ArrayList<>(sent);
            sent.clear();
            return copy;
        }

        List<Integer> acks() {
            List<Integer> acks = new ArrayList<>();
            for (int i = 0; i < endpoint.ackCount(); i++) {
                acks.add(endpoint.ack(i));
            }
            return acks;
        }
    }

    private TestLink() {
    }

    static byte[] payload(int length, int seed) {
        byte[] p = new byte[length];
        for (int i = 0; i < length; i++) {
            p[i] = (byte) (seed + 7 * i);
        }
        return p;
    }

    /** A regular packet: canonical header for (sequence, ack, ackBits), then the payload. */
    static byte[] regular(int sequence, int ack, int ackBits, byte[] payload) {
        byte[] out = new byte[PacketHeaderCodec.MAX_HEADER_BYTES + payload.length];
        int h = PacketHeaderCodec.encode(out, 0, sequence, ack, ackBits);
        System.arraycopy(payload, 0, out, h, payload.length);
        return Arrays.copyOf(out, h + payload.length);
    }

    /** A fragment datagram; fragment 0 gets the canonical embedded header for (sequence, ack, ackBits). */
    static byte[] fragment(int sequence, int fragmentId, int numFragments, int ack, int ackBits, byte[] data) {
        byte[] out = new byte[5 + 9 + data.length];
        out[0] = 1;
        out[1] = (byte) sequence;
        out[2] = (byte) (sequence >>> 8);
        out[3] = (byte) fragmentId;
        out[4] = (byte) (numFragments - 1);
        int p = 5;
        if (fragmentId == 0) {
            p += PacketHeaderCodec.encode(out, p, sequence, ack, ackBits);
        }
        System.arraycopy(data, 0, out, p, data.length);
        return Arrays.copyOf(out, p + data.length);
    }
}
