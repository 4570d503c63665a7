package io.reliableudp.bench.kcp;

import io.jpower.kcp.netty.ChannelOptionHelper;
import io.jpower.kcp.netty.UkcpChannel;
import io.jpower.kcp.netty.UkcpChannelOption;
import io.jpower.kcp.netty.UkcpClientChannel;
import io.jpower.kcp.netty.UkcpServerChannel;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.UkcpServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * The ping-pong side of the KCP baseline (for the {@code pingpong} benchmark), beside {@link KcpLink}, which
 * only streams one way: an echo server that writes every message back on the link it came from, and a
 * client whose replies go to a sink. Same KCP settings as {@link KcpLink} (fast mode: nodelay 1, interval
 * 10, resend 2, nc 1; kcp-netty's defaults otherwise). Reached from the harness only through these static
 * methods and JDK types, in a child JVM (Netty 4.1).
 */
public final class KcpEcho {

    private static final int INTERVAL_MILLIS = 10;
    private static final int FAST_RESEND = 2;

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
        EventLoopGroup group = new NioEventLoopGroup(1);
        UkcpServerBootstrap b = new UkcpServerBootstrap();
        b.group(group).channel(UkcpServerChannel.class).childHandler(new ChannelInitializer<UkcpChannel>() {
            @Override
            protected void initChannel(UkcpChannel ch) {
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
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
        });
        ChannelOptionHelper.nodelay(b, true, INTERVAL_MILLIS, FAST_RESEND, true)
                .childOption(UkcpChannelOption.UKCP_AUTO_SET_CONV, true);
        Channel channel = b.bind(new InetSocketAddress("127.0.0.1", port)).sync().channel();
        return new Link(group, channel);
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
        EventLoopGroup group = new NioEventLoopGroup(1);
        Bootstrap b = new Bootstrap();
        b.group(group).channel(UkcpClientChannel.class).handler(new ChannelInitializer<UkcpChannel>() {
            @Override
            protected void initChannel(UkcpChannel ch) {
                ch.conv(KcpLink.CONV);
                ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf buf = (ByteBuf) msg;
                        try {
                            byte[] bytes = new byte[buf.readableBytes()];
                            buf.readBytes(bytes);
                            replies.accept(bytes);
                        } finally {
                            buf.release();
                        }
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        System.err.println("kcp client: " + cause);
                    }
                });
            }
        });
        ChannelOptionHelper.nodelay(b, true, INTERVAL_MILLIS, FAST_RESEND, true);
        Channel channel = b.connect(host, port).sync().channel();
        return new Link(group, channel);
    }

    /** A bound or connected channel with its event loop. */
    private static final class Link implements AutoCloseable, IntSupplier, Consumer<byte[]> {
        private final EventLoopGroup group;
        private final Channel channel;

        Link(EventLoopGroup group, Channel channel) {
            this.group = group;
            this.channel = channel;
        }

        @Override
        public void accept(byte[] message) {
            channel.writeAndFlush(Unpooled.wrappedBuffer(message));
        }

        @Override
        public int getAsInt() {
            return ((InetSocketAddress) channel.localAddress()).getPort();
        }

        @Override
        public void close() {
            try {
                channel.close().await(2, TimeUnit.SECONDS);
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(3, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
