package io.reliableudp.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@link ScaleBench#socketDrops}: the kernel's drop count of the server's socket, read from
 * {@code /proc/net/udp}. A socket with a small receive buffer that is never read overflows when sent
 * more datagrams than it holds: its count goes from 0 to the datagrams sent minus those it held, and a
 * port with no socket counts 0. Linux only (skipped elsewhere).
 */
class SocketDropsTest {

    @Test
    void countsTheDatagramsAFullReceiveBufferDropped() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/net/udp")), "needs Linux /proc/net/udp");
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        try (DatagramChannel receiver = DatagramChannel.open(); DatagramChannel sender = DatagramChannel.open()) {
            receiver.setOption(StandardSocketOptions.SO_RCVBUF, 4096); // the kernel's least: a few datagrams
            receiver.bind(new InetSocketAddress(loopback, 0));
            int port = ((InetSocketAddress) receiver.getLocalAddress()).getPort();
            assertThat(ScaleBench.socketDrops(port)).isZero();
            int sent = 2000;
            ByteBuffer datagram = ByteBuffer.allocate(512);
            for (int i = 0; i < sent; i++) {
                sender.send(datagram.clear(), new InetSocketAddress(loopback, port));
            }
            int held = 0;
            receiver.configureBlocking(false);
            while (receiver.receive(ByteBuffer.allocate(512)) != null) {
                held++;
            }
            assertThat(held).isPositive().isLessThan(sent);
            assertThat(ScaleBench.socketDrops(port)).isEqualTo(sent - held);
        }
    }
}
