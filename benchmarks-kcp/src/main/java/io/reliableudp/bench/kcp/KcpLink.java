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
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * One KCP link for the benchmarks (kcp-netty 1.5.2 on Netty 4.1.68) behind JDK-only types, in the fast mode of
 * KCP's own documentation: {@code nodelay 1, interval 10, resend 2, nc 1} ({@link ChannelOptionHelper#nodelay});
 * everything else is kcp-netty's default (message mode, MTU 1400, send window 32, receive window 128, fast flush
 * on write).
 *
 * <p>This class lives in its own module and jar because kcp-netty needs Netty 4.1; the harness in the
 * {@code benchmarks} module runs it in a child JVM and reaches it only through the two static methods and
 * JDK types, so neither module compiles against the other.
 */
public final class KcpLink {

    /** The KCP conversation id of every link (the client sets it, the server adopts it). */
    static final int CONV = 10;
    private static final int INTERVAL_MILLIS = 10;
    private static final int FAST_RESEND = 2;

    private KcpLink() {
    }

    /**
     * Receives KCP messages on a UDP port.
     *
     * @param port the port (0: any free one)
     * @param sink gets every message, on the Netty event loop
     * @return an {@link AutoCloseable} that is also an {@link IntSupplier} of the bound port
     * @throws InterruptedException when interrupted while binding
     */
    public static AutoCloseable listen(int port, Consumer<byte[]> sink) throws InterruptedException {
        return bind(new InetSocketAddress(port), () -> new Inbound(sink));
    }

    /** Binds a KCP server channel in the fast mode; each accepted conversation gets a handler of its own. */
    static Link bind(InetSocketAddress address, Supplier<ChannelHandler> handlers) throws InterruptedException {
        EventLoopGroup group = new NioEventLoopGroup(1);
        UkcpServerBootstrap b = new UkcpServerBootstrap();
        b.group(group).channel(UkcpServerChannel.class).childHandler(new ChannelInitializer<UkcpChannel>() {
            @Override
            protected void initChannel(UkcpChannel ch) {
                ch.pipeline().addLast(handlers.get());
            }
        });
        ChannelOptionHelper.nodelay(b, true, INTERVAL_MILLIS, FAST_RESEND, true)
                .childOption(UkcpChannelOption.UKCP_AUTO_SET_CONV, true);
        Channel channel = b.bind(address).sync().channel();
        return new Link(group, channel);
    }

    /**
     * Opens a KCP link to a receiver.
     *
     * @param host the receiver's address
     * @param port the receiver's port
     * @return a {@link Consumer} that sends one message per call (any thread) and is also {@link AutoCloseable}
     * @throws InterruptedException when interrupted while connecting
     */
    public static Consumer<byte[]> connect(String host, int port) throws InterruptedException {
        return connect(host, port, bytes -> { });
    }

    /** Connects a KCP client channel in the fast mode; every message from the server goes to {@code sink}. */
    static Link connect(String host, int port, Consumer<byte[]> sink) throws InterruptedException {
        EventLoopGroup group = new NioEventLoopGroup(1);
        Bootstrap b = new Bootstrap();
        b.group(group).channel(UkcpClientChannel.class).handler(new ChannelInitializer<UkcpChannel>() {
            @Override
            protected void initChannel(UkcpChannel ch) {
                ch.conv(CONV);
                ch.pipeline().addLast(new Inbound(sink));
            }
        });
        ChannelOptionHelper.nodelay(b, true, INTERVAL_MILLIS, FAST_RESEND, true);
        Channel channel = b.connect(host, port).sync().channel();
        return new Link(group, channel);
    }

    /** A bound or connected channel with its event loop. */
    static final class Link implements AutoCloseable, IntSupplier, Consumer<byte[]> {
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
        public void close() throws InterruptedException {
            channel.close().await(2, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(3, TimeUnit.SECONDS);
        }
    }

    /** Copies each message out of Netty's buffer into a fresh array for the sink. */
    private static final class Inbound extends ChannelInboundHandlerAdapter {
        private final Consumer<byte[]> sink;

        Inbound(Consumer<byte[]> sink) {
            this.sink = sink;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf buf = (ByteBuf) msg;
            try {
                byte[] bytes = new byte[buf.readableBytes()];
                buf.readBytes(bytes);
                sink.accept(bytes);
            } finally {
                buf.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            System.err.println("kcp: " + cause);
        }
    }
}
