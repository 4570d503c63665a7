package io.reliableudp.connection;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.message.MessageEndpoint;
import io.reliableudp.message.SendCompletion;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Test doubles: a session that passes payload bytes straight through, and connection pairs in memory. */
final class ConnectionTestSupport {

    private ConnectionTestSupport() {
    }

    /**
     * A session double: {@code offer} emits the payload as one packet at once (completion told),
     * {@code receive} delivers the bytes as one message of channel 0.
     */
    static final class EchoSession implements Session {
        private final Output out;
        private final Input in;
        private int nextId;
        private boolean closed;
        final List<DeliveryFailure> closedWith = new ArrayList<>();

        EchoSession(Output out, Input in) {
            this.out = out;
            this.in = in;
        }

        @Override
        public int offer(int channel, byte[] payload, @Nullable SendCompletion completion) {
            if (closed) {
                if (completion != null) {
                    completion.failed(new DeliveryException(DeliveryFailure.CLOSED, "closed"));
                }
                return MessageEndpoint.OFFER_CLOSED;
            }
            out.send(payload, 0, payload.length);
            int id = nextId++;
            if (completion != null) {
                completion.delivered(channel, id);
            }
            return id;
        }

        @Override
        public void receive(byte[] data, int offset, int length) {
            in.onMessage(0, 0, data, offset, length);
        }

        @Override
        public void update(double time) {
        }

        @Override
        public void flush(double time) {
        }

        @Override
        public boolean hasPendingReliable() {
            return false;
        }

        @Override
        public void close(DeliveryFailure reason) {
            closed = true;
            closedWith.add(reason);
        }
    }

    /** Records how sends ended. */
    static final class Outcomes implements SendCompletion {
        final List<Integer> delivered = new ArrayList<>();
        final List<DeliveryException> failed = new ArrayList<>();

        @Override
        public void delivered(int channel, int messageId) {
            delivered.add(messageId);
        }

        @Override
        public void failed(DeliveryException failure) {
            failed.add(failure);
        }
    }

    static final Session.Factory RECORDING = (MessageConfig config, double time, Session.Output out, Session.Input in) ->
            new EchoSession(out, in);

    /** Records events of one connection. */
    static final class Recorder implements Connection.Events, Connection.Transmitter {
        final List<byte[]> sent = new ArrayList<>();
        final List<byte[]> delivered;
        final List<DropReason> drops = new ArrayList<>();
        final List<DisconnectReason> disconnects = new ArrayList<>();
        int connects;

        Recorder(List<byte[]> delivered) {
            this.delivered = delivered;
        }

        @Override
        public void onConnected() {
            connects++;
        }

        @Override
        public void onDisconnected(DisconnectReason reason, String detail) {
            disconnects.add(reason);
        }

        @Override
        public void onMessage(int channel, int messageId, byte[] data, int offset, int length) {
            delivered.add(Arrays.copyOfRange(data, offset, offset + length));
        }

        @Override
        public void onDrop(DropReason reason) {
            drops.add(reason);
        }

        @Override
        public void transmit(byte[] data, int offset, int length) {
            sent.add(Arrays.copyOfRange(data, offset, offset + length));
        }
    }

    /**
     * A server-side connection as if a response with salt 0x5a17 had been verified; with a key, its
     * session keys are HKDF(key, 16 bytes of 7) (a fixed stand-in for the handshake's).
     */
    static Connection serverConnection(ConnectionSettings settings, List<byte[]> delivered) {
        Recorder r = new Recorder(delivered);
        byte[] cn = new byte[16];
        byte[] sn = new byte[16];
        Arrays.fill(sn, (byte) 7);
        byte[][] keys = settings.preSharedKey() == null ? null : Transcript.hkdf(settings.preSharedKey(), sn);
        return Connection.server(settings, r, r, 0x5a17, keys, null, null, 0, 0.0);
    }

    /**
     * Sets the sequence of a plain frame (bytes 5-12) in place and returns it: a frame sent again must
     * carry a new sequence, or the replay window drops it as old.
     */
    static byte[] sequenced(byte[] frame, long sequence) {
        io.reliableudp.internal.WireCodec.putLongBE(frame, 5, sequence);
        return frame;
    }
}
