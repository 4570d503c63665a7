package io.reliableudp.bench.kit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The UDP delay line of the {@code loss} benchmark's delayed runs ({@code --delay-ms}): a process inside the
 * benchmark's network namespace between one sender and one receiver, the same for every UDP system. The sender
 * sends to the relay's front port; the relay forwards each datagram from a back socket of its own to the
 * receiver's port, and the receiver's answers back from the front port to the address the sender last sent from.
 * Each datagram is dropped with the loss probability (one decision per datagram and direction) or released
 * {@code delay + jitter} after it arrived, the jitter uniform in {@code [-j, +j]} with {@code j} the jitter
 * percentage of the delay, drawn for each datagram alone: two datagrams swap only when they arrived less than
 * {@code 2j} apart, which is what jitter of that size implies (netem's default too), and never otherwise.
 *
 * <p>What it leaves out: no queue and no bandwidth limit (a datagram never waits for another), the relay's CPU is
 * taken from the same cores as the peers', and its timer is the JVM's {@code parkNanos} (tens of microseconds
 * late, on a busy machine more). Run as {@code DelayRelay targetPort delayMs jitterPercent lossPercent seed}; prints
 * {@code READY port=N} and, on {@code STOP} or the end of stdin, {@code RELAY} with its counts, and exits.
 */
public final class DelayRelay implements AutoCloseable {

    private static final int MAX_DATAGRAM = 65_536;

    private final DatagramChannel front;
    private final DatagramChannel back;
    private final InetSocketAddress target;
    private final long delayNanos;
    private final long jitterNanos;
    private final double loss;
    private final SplittableRandom random;
    private final DelayQueue<Held> line = new DelayQueue<>();
    private volatile SocketAddress client;
    private final AtomicLong forwarded = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final Thread[] threads = new Thread[3];

    /** One datagram on the line: its bytes, where it goes, when it leaves. */
    private record Held(byte[] bytes, boolean toTarget, long releaseNanos) implements Delayed {
        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(releaseNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(releaseNanos, ((Held) o).releaseNanos);
        }
    }

    /**
     * Opens the relay on a free loopback port towards {@code targetPort} on the loopback.
     *
     * @param delayMillis one-way delay in milliseconds (each direction)
     * @param jitterPercent jitter as a percentage of the delay (uniform in +-that)
     * @param lossPercent datagrams dropped in each direction, percent
     */
    public DelayRelay(int targetPort, double delayMillis, double jitterPercent, double lossPercent, long seed) throws IOException {
        if (delayMillis < 0 || jitterPercent < 0 || jitterPercent > 100 || lossPercent < 0 || lossPercent > 100) {
            throw new IllegalArgumentException("relay: need delay >= 0, jitter 0..100 %, loss 0..100 %");
        }
        InetAddress loopback = InetAddress.getLoopbackAddress();
        target = new InetSocketAddress(loopback, targetPort);
        delayNanos = Math.round(delayMillis * 1e6);
        jitterNanos = Math.round(delayNanos * jitterPercent / 100);
        loss = lossPercent / 100;
        random = new SplittableRandom(seed);
        front = DatagramChannel.open().bind(new InetSocketAddress(loopback, 0));
        back = DatagramChannel.open().bind(new InetSocketAddress(loopback, 0));
        threads[0] = new Thread(() -> receive(front, true), "relay-front");
        threads[1] = new Thread(() -> receive(back, false), "relay-back");
        threads[2] = new Thread(this::release, "relay-release");
        for (Thread t : threads) {
            t.setDaemon(true);
            t.start();
        }
    }

    /** The port the sender sends to. */
    public int port() throws IOException {
        return ((InetSocketAddress) front.getLocalAddress()).getPort();
    }

    /** Datagrams forwarded and dropped so far. */
    public String counts() {
        return "forwarded=" + forwarded.get() + " dropped=" + dropped.get();
    }

    /** The release time of a datagram that arrived at {@code arrival}: the delay plus a uniform jitter in [-j, +j]. */
    private long releaseTime(long arrival) {
        long jitter;
        synchronized (random) {
            jitter = jitterNanos == 0 ? 0 : random.nextLong(-jitterNanos, jitterNanos + 1);
        }
        return arrival + delayNanos + jitter;
    }

    private boolean lost() {
        synchronized (random) {
            return loss > 0 && random.nextDouble() < loss;
        }
    }

    private void receive(DatagramChannel channel, boolean fromClient) {
        ByteBuffer buffer = ByteBuffer.allocateDirect(MAX_DATAGRAM);
        try {
            while (true) {
                buffer.clear();
                SocketAddress from = channel.receive(buffer);
                long arrival = System.nanoTime();
                if (fromClient) {
                    client = from;
                } else if (!target.equals(from)) {
                    continue; // not the receiver's
                }
                if (lost()) {
                    dropped.incrementAndGet();
                    continue;
                }
                buffer.flip();
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                line.add(new Held(bytes, fromClient, releaseTime(arrival)));
            }
        } catch (ClosedChannelException e) {
            // closed
        } catch (IOException e) {
            System.out.println("RELAY receive failed: " + e);
        }
    }

    private void release() {
        try {
            while (true) {
                Held h = line.take();
                SocketAddress to = h.toTarget ? target : client;
                if (to == null) {
                    continue;
                }
                (h.toTarget ? back : front).send(ByteBuffer.wrap(h.bytes), to);
                forwarded.incrementAndGet();
            }
        } catch (InterruptedException | ClosedChannelException e) {
            // closed
        } catch (IOException e) {
            System.out.println("RELAY send failed: " + e);
        }
    }

    @Override
    public void close() throws IOException {
        threads[2].interrupt();
        front.close();
        back.close();
    }

    /** {@code DelayRelay targetPort delayMs jitterPercent lossPercent seed}. */
    public static void main(String[] args) throws IOException {
        if (args.length != 5) {
            System.out.println("usage: DelayRelay targetPort delayMs jitterPercent lossPercent seed");
            System.exit(2);
        }
        try (DelayRelay relay = new DelayRelay(Integer.parseInt(args[0]), Double.parseDouble(args[1]),
                Double.parseDouble(args[2]), Double.parseDouble(args[3]), Long.parseLong(args[4]))) {
            System.out.println("READY port=" + relay.port());
            System.out.flush();
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null && !line.trim().equals("STOP"); ) {
                    // wait
                }
            }
            System.out.println("RELAY " + relay.counts());
            System.out.flush();
        }
    }
}
