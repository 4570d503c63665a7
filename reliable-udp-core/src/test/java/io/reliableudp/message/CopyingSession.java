package io.reliableudp.message;

import io.reliableudp.connection.Session;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Test helper: the message layer wired the way it sent before packets were composed in place, for
 * tests that compare the two paths' datagrams. Its sender offers no datagram buffer and is
 * {@code byte[]}-only (so the connection copies each packet into its buffer), and its packet link
 * sends through the packet layer's copying {@link io.reliableudp.packet.ReliableEndpoint#sendPacket(byte[],
 * int, int)} (header and frames copied into the transmit buffer). Public so that the connection
 * package's tests can use it as a {@link Session.Factory}.
 */
public final class CopyingSession implements Session {

    /** A copying session per connection. */
    public static final Session.Factory FACTORY = CopyingSession::new;

    private final MessageEndpoint endpoint;

    private CopyingSession(MessageConfig config, double time, Session.Output out, Session.Input in) {
        DatagramSender bytesOnly = out::send; // the byte[] method only: no buffer, no headroom
        this.endpoint = new MessageEndpoint(config, time, bytesOnly, in, CopyingLink::new);
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

    @Override
    public int offer(int channel, byte[] payload, @Nullable SendCompletion completion) {
        return endpoint.offer(channel, payload, completion);
    }

    @Override
    public void receive(byte[] data, int offset, int length, double time) {
        endpoint.receive(data, offset, length, time);
    }

    @Override
    public double nextDeadline() {
        return endpoint.nextDeadline();
    }

    @Override
    public void receive(byte[] data, int offset, int length) {
        endpoint.receive(data, offset, length);
    }

    @Override
    public void update(double time) {
        endpoint.update(time);
    }

    @Override
    public void flush(double time) {
        endpoint.flush(time);
    }

    @Override
    public boolean hasPendingReliable() {
        return endpoint.hasPendingReliable();
    }

    @Override
    public void close(DeliveryFailure reason) {
        endpoint.close(reason);
    }

    @Override
    public MessageStats stats() {
        return endpoint.stats();
    }
}
