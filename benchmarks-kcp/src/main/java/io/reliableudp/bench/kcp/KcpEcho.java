package io.reliableudp.bench.kcp;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetSocketAddress;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * The ping-pong side of the KCP baseline (for the {@code pingpong} benchmark), beside {@link KcpLink}, which
 * only streams one way: an echo server that writes every message back on the link it came from, and a
 * client whose replies go to a sink. Same KCP settings as {@link KcpLink}, whose bootstraps it uses (fast
 * mode: nodelay 1, interval 10, resend 2, nc 1; kcp-netty's defaults otherwise). Reached from the harness
 * only through these static methods and JDK types, in a child JVM (Netty 4.1).
 */
public final class KcpEcho {

    private KcpEcho() {
    }

    /**
     * An echo server on a UDP port of loopback.
     *
     * @param port the port (0: any free one)
     * @return an {@link AutoCloseable} that is also an {@link IntSupplier} of the bound port
     * @throws InterruptedException when interrupted while binding
     */
    public static AutoCloseable listenEcho(int port) throws InterruptedException {
        return KcpLink.bind(new InetSocketAddress("127.0.0.1", port), () -> new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ctx.writeAndFlush(msg); // the same buffer goes back; Netty releases it once written
            }

            @Override
            public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                System.err.println("kcp echo: " + cause);
            }
        });
    }

    /**
     * A client link whose incoming messages (the echoes) go to {@code replies}.
     *
     * @param host the server's address
     * @param port the server's port
     * @param replies gets every message from the server, on the Netty event loop
     * @return a {@link Consumer} that sends one message per call (any thread) and is also {@link AutoCloseable}
     * @throws InterruptedException when interrupted while connecting
     */
    public static Consumer<byte[]> connect(String host, int port, Consumer<byte[]> replies) throws InterruptedException {
        return KcpLink.connect(host, port, replies);
    }
}
