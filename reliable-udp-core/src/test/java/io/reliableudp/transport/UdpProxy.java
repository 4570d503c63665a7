package io.reliableudp.transport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;

/**
 * A man in the middle on loopback: forwards datagrams between one client and a server, records what
 * the client sent, and can rewrite datagrams on the way or inject copies (replays, tampering).
 */
final class UdpProxy implements AutoCloseable {

    private final DatagramChannel channel;
    private final InetSocketAddress server;
    private volatile SocketAddress client;
    final List<byte[]> fromClient = new CopyOnWriteArrayList<>();
    volatile UnaryOperator<byte[]> toServerRewrite = UnaryOperator.identity();
    private final Thread thread;

    UdpProxy(InetSocketAddress server) throws IOException {
        this.server = server;
        this.channel = DatagramChannel.open();
        channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.thread = Thread.ofPlatform().daemon().name("udp-proxy").start(this::run);
    }

    InetSocketAddress address() throws IOException {
        return (InetSocketAddress) channel.getLocalAddress();
    }

    private void run() {
        ByteBuffer buf = ByteBuffer.allocate(65_536);
        try {
            while (channel.isOpen()) {
                buf.clear();
                SocketAddress from = channel.receive(buf);
                buf.flip();
                byte[] data = Arrays.copyOf(buf.array(), buf.remaining());
                if (from.equals(server)) {
                    if (client != null) {
                        channel.send(ByteBuffer.wrap(data), client);
                    }
                } else {
                    client = from;
                    fromClient.add(data);
                    byte[] out = toServerRewrite.apply(data);
                    if (out != null) {
                        channel.send(ByteBuffer.wrap(out), server);
                    }
                }
            }
        } catch (IOException e) {
            // closed
        }
    }

    /** Sends a datagram to the server as if the client sent it. */
    void inject(byte[] data) throws IOException {
        channel.send(ByteBuffer.wrap(data), server);
    }

    @Override
    public void close() throws Exception {
        channel.close();
        thread.join(2_000);
    }
}
