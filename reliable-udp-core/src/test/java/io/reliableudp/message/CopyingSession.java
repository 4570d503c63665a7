package io.reliableudp.message;

import io.reliableudp.connection.MessageSession;
import io.reliableudp.connection.Session;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Test helper: the message layer wired the way it sent before packets were composed in place, for
 * tests that compare the two paths' datagrams. Its sender offers no datagram buffer and is
 * {@code byte[]}-only (so the connection copies each packet into its buffer), and its packet link
 * sends through the packet layer's copying {@link io.reliableudp.packet.ReliableEndpoint#sendPacket(byte[],
 * int, int)} (header and frames copied into the transmit buffer). The session itself is the production
 * {@link MessageSession}. Public so that the connection package's tests can use it as a {@link Session.Factory}.
 */
public final class CopyingSession {

    /** A copying session per connection: the production session over an endpoint with the copying sender and link. */
    public static final Session.Factory FACTORY = (config, time, out, in) -> {
        DatagramSender bytesOnly = out::send; // the byte[] method only: no buffer, no headroom
        return MessageSession.over(new MessageEndpoint(config, time, bytesOnly, in, CopyingLink::new));
    };

    private CopyingSession() {
    }

    /** The production packet link, except that a packet is copied out and sent through the byte[] API. */
    private static final class CopyingLink implements PacketLink {
        private final ReliablePacketLink link;

        CopyingLink(double time, Sizing sizing, Hooks hooks) {
            this.link = new ReliablePacketLink(time, sizing, hooks);
        }

        @Override
        public int sendPacket(byte[] data, int offset, int length) {
            return link.sendPacket(data, offset, length);
        }

        @Override
        public int sendPacket(ByteBuffer buffer, int offset, int length) {
            byte[] copy = new byte[length];
            buffer.get(offset, copy);
            return link.sendPacket(copy, 0, length);
        }

        @Override
        public void receivePacket(byte[] data, int offset, int length) {
            link.receivePacket(data, offset, length);
        }

        @Override
        public void setRegularPayloadLimit(int bytes) {
            link.setRegularPayloadLimit(bytes);
        }

        @Override
        public void update(double time) {
            link.update(time);
        }

        @Override
        public void advanceTime(double time) {
            link.advanceTime(time);
        }

        @Override
        public int nextPacketSequence() {
            return link.nextPacketSequence();
        }

        @Override
        public MessageStats.PacketLayer stats() {
            return link.stats();
        }

        @Override
        public void setRttListener(@Nullable RttSampleListener listener) {
            link.setRttListener(listener);
        }
    }
}
