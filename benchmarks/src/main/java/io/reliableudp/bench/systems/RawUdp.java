package io.reliableudp.bench.systems;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * The raw-datagram baseline: {@link DatagramChannel}s on loopback, one message per datagram, no
 * reliability. Throughput: one sender thread sends 64 datagrams to the receiver from each of the
 * {@code connections} client channels in turn, one receiver thread counts (receive buffer 4 MiB, as
 * this library's nodes ask for). Ping-pong: a connected client channel and a blocking echo thread (a
 * lost datagram ends the run with an error 10 s after its end, instead of blocking for good).
 */
public final class RawUdp implements ThroughputSystem, PingPongSystem {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int BURST = 64;

    @Override
    public String name() {
        return "raw-udp";
    }

    @Override
    public boolean reliable() {
        return false;
    }

    @Override
    @SuppressWarnings("try") // the receiving channel is closed early on purpose: that ends the receiver's blocking read
    public ThroughputRun measure(int size, int connections, double seconds) throws Exception {
        List<DatagramChannel> clients = new ArrayList<>();
        try (DatagramChannel rx = DatagramChannel.open()) {
            rx.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
            rx.bind(new InetSocketAddress(LOOPBACK, 0));
            InetSocketAddress to = (InetSocketAddress) rx.getLocalAddress();
            for (int i = 0; i < connections; i++) {
                DatagramChannel tx = DatagramChannel.open();
                clients.add(tx);
                tx.setOption(StandardSocketOptions.SO_SNDBUF, 4 << 20);
                tx.bind(new InetSocketAddress(LOOPBACK, 0));
                tx.connect(to);
            }
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong received = new AtomicLong();
            AtomicLong sent = new AtomicLong();
            Thread receiver = Thread.ofPlatform().name("raw-udp-receiver").start(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(2048);
                long count = 0;
                try {
                    while (true) {
                        b.clear();
                        rx.receive(b);
                        received.lazySet(++count);
                    }
                } catch (IOException e) {
                    // closed: the end of the measurement
                }
            });
            Thread sender = Thread.ofPlatform().name("raw-udp-sender").start(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(size);
                long count = 0;
                try {
                    while (!stop.get()) {
                        for (int c = 0; c < clients.size(); c++) {
                            DatagramChannel tx = clients.get(c);
                            for (int m = 0; m < BURST; m++) {
                                b.clear();
                                tx.write(b);
                                count++;
                            }
                        }
                        sent.lazySet(count);
                    }
                } catch (IOException e) {
                    // a loopback write does not fail; if it does, the figures say so
                }
                sent.set(count);
            });
            Thread.sleep(200);
            long before = received.get();
            long start = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            long after = received.get();
            double elapsed = (System.nanoTime() - start) / 1e9;
            stop.set(true);
            sender.join();
            Thread.sleep(50); // what is in the socket buffer still arrives
            rx.close();
            receiver.join(1000);
            return new ThroughputRun((after - before) / elapsed, sent.get(), received.get());
        } finally {
            for (DatagramChannel c : clients) {
                c.close();
            }
        }
    }

    @Override
    @SuppressWarnings("try") // the server channel is closed early on purpose: that ends the echo thread's blocking read
    public Histogram measure(int size, double seconds) throws Exception {
        try (DatagramChannel server = DatagramChannel.open(); DatagramChannel client = DatagramChannel.open()) {
            server.bind(new InetSocketAddress(LOOPBACK, 0));
            client.bind(new InetSocketAddress(LOOPBACK, 0));
            InetSocketAddress serverAddress = (InetSocketAddress) server.getLocalAddress();
            Thread echo = Thread.ofPlatform().name("raw-udp-echo").start(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(2048);
                try {
                    while (true) {
                        b.clear();
                        var from = server.receive(b);
                        b.flip();
                        server.send(b, from);
                    }
                } catch (IOException e) {
                    // closed: the end of the measurement
                }
            });
            client.connect(serverAddress);
            Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            ByteBuffer out = ByteBuffer.allocateDirect(size);
            ByteBuffer in = ByteBuffer.allocateDirect(2048);
            long end = System.nanoTime() + (long) (seconds * 1e9);
            // a lost datagram would block the read for good: a watchdog closes the channel 10 s after the end
            Thread watchdog = Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()) + 10_000);
                    client.close();
                } catch (InterruptedException | IOException e) {
                    // finished in time
                }
            });
            try {
                for (long t0 = System.nanoTime(); t0 - end < 0; t0 = System.nanoTime()) {
                    out.clear();
                    client.write(out);
                    in.clear();
                    client.read(in);
                    h.recordValue(System.nanoTime() - t0);
                }
            } catch (java.nio.channels.ClosedChannelException e) {
                throw new IllegalStateException("raw UDP ping-pong stalled (a datagram lost) after " + h.getTotalCount() + " round trips");
            } finally {
                watchdog.interrupt();
            }
            server.close();
            echo.join(1000);
            return h;
        }
    }
}
