package io.reliableudp.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Two SLICE frames of one new message with different geometry in the same packet (found by
 * {@code MessageFuzzTest#receiveNeverThrows}): validation compares a slice with the reassemblies that
 * existed before the packet, so the second frame reached the reassembly made by the first and was copied
 * out of its bounds (an {@code ArrayIndexOutOfBoundsException} caught by the packet-layer safety net and
 * logged with its stack trace, per packet). Now the second slice is dropped and counted as malformed.
 */
class SliceGeometryInOnePacketTest {

    @Test
    void aSecondSliceWithOtherGeometryInTheSamePacketIsDroppedAndCounted() {
        List<String> warnings = new ArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel() == Level.WARNING) {
                    warnings.add(r.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger(MessageEndpoint.class.getName());
        log.addHandler(handler);
        try {
            List<Integer> delivered = new ArrayList<>();
            MessageEndpoint endpoint = new MessageEndpoint(
                    EndpointPair.config(DeliveryMode.RELIABLE_ORDERED).toBuilder().maxMessageSize(64 * 1024).build(), 0,
                    (d, o, l) -> { }, (c, id, d, o, l) -> delivered.add(id));
            ByteArrayOutputStream p = new ByteArrayOutputStream();
            // SLICE channel 0, id 0, total 100, slice size 50, index 0, 50 bytes
            p.writeBytes(new byte[] {(byte) 0x80, 0, 0, 100, 50, 0});
            p.writeBytes(new byte[50]);
            // SLICE channel 0, id 0, total 200, slice size 100, index 1, 100 bytes: other geometry, same packet
            p.writeBytes(new byte[] {(byte) 0x80, 0, 0, (byte) 0xC8, 0x01, 100, 1});
            p.writeBytes(new byte[100]);
            byte[] payload = p.toByteArray();
            byte[] datagram = new RawPeer().packet(payload, payload.length);

            endpoint.receive(datagram, 0, datagram.length);

            assertThat(warnings).as("no packet-layer failure logged").isEmpty();
            assertThat(endpoint.stats().malformedPackets()).isEqualTo(1);
            assertThat(delivered).isEmpty();
        } finally {
            log.removeHandler(handler);
        }
    }
}
