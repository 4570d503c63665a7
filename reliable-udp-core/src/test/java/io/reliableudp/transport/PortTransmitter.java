package io.reliableudp.transport;

// Test support: a sans-I/O Connection's Transmitter that writes every datagram to one address
// through a DatagramPort (the tests that drive many client Connections over one network).

import io.reliableudp.connection.Connection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

final class PortTransmitter {

    private PortTransmitter() {
    }

    /** A transmitter that sends each datagram to {@code to} through {@code port}. */
    static Connection.Transmitter to(DatagramPort port, InetSocketAddress to) {
        return new Connection.Transmitter() {
            @Override
            public void transmit(byte[] data, int offset, int length) {
                send(ByteBuffer.wrap(data, offset, length));
            }

            @Override
            public void transmit(ByteBuffer buffer, int offset, int length) {
                buffer.limit(offset + length).position(offset);
                try {
                    send(buffer);
                } finally {
                    buffer.clear();
                }
            }

            private void send(ByteBuffer datagram) {
                try {
                    port.send(datagram, to);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
    }
}
