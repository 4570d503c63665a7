package io.reliableudp.demo.web;

import io.reliableudp.demo.node.Ledger;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.SplittableRandom;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.TimeUnit;

/**
 * The TCP lane as a model (beside the namespace lane, or alone when the demo cannot build one): the
 * same position events as rover-1, each in its own segment (TCP_NODELAY), over a real TCP connection
 * on loopback, through a proxy that models a lossy link with rover-1's round trip (docs/demo.md): each
 * event is lost with the link's probability and then arrives after Linux's minimum retransmission
 * timeout (200 ms, doubling when the retransmission is lost too) on top of the link's one-way latency;
 * every later event, though it arrived, waits behind it, as TCP's in-order byte stream makes it (events
 * lost meanwhile are recovered in parallel). Delivery latencies go to the ledger's lane {@code tcp-model}.
 */
final class ModelTcpLane implements TcpLane {

    /** Linux's minimum retransmission timeout (TCP_RTO_MIN). */
    static final long MIN_RTO_NANOS = 200_000_000L;
    /** Frame on the stream: sequence number and send time. */
    private static final int FRAME = 16;

    private final Ledger.Latencies latencies;
    private final ServerSocket receiverServer;
    private final ServerSocket proxyServer;
    private final Socket sender;
    private final DataOutputStream out;
    private final DelayQueue<Held> held = new DelayQueue<>();
    private final SplittableRandom random = new SplittableRandom(7);
    private volatile double loss;
    private volatile long latencyNanos;
    private volatile boolean open = true;
    private final String whyNoNamespace;
    private long lastRelease;
    private long order;
    private long sent;

    ModelTcpLane(Ledger ledger, String whyNoNamespace) throws IOException {
        this.whyNoNamespace = whyNoNamespace;
        this.latencies = ledger.lane(name());
        InetAddress lo = InetAddress.getLoopbackAddress();
        receiverServer = new ServerSocket(0, 1, lo);
        proxyServer = new ServerSocket(0, 1, lo);
        Thread.ofPlatform().daemon().name("demo-tcp-receiver").start(this::receive);
        Thread.ofPlatform().daemon().name("demo-tcp-proxy").start(this::proxy);
        sender = new Socket(lo, proxyServer.getLocalPort());
        sender.setTcpNoDelay(true);
        out = new DataOutputStream(sender.getOutputStream());
    }

    /** Follows rover-1's link: loss probability 0..1 and one-way latency. */
    @Override
    public void follow(double lossProbability, double latencyMillis) {
        this.loss = lossProbability;
        this.latencyNanos = (long) (latencyMillis * 1_000_000);
    }

    /** Sends one event (called by the traffic thread at rover-1's rate). */
    @Override
    public void send(long seq, long nowNanos) {
        if (!open) {
            return;
        }
        try {
            out.writeLong(seq);
            out.writeLong(nowNanos);
            out.flush();
            sent++;
        } catch (IOException e) {
            if (open) {
                System.out.println("  tcp lane: send failed (" + e.getMessage() + "), lane stopped");
            }
            open = false;
        }
    }

    /** Events sent. */
    @Override
    public long sent() {
        return sent;
    }

    /** Events the receiving end read, in order (TCP cannot deliver otherwise). */
    @Override
    public long delivered() {
        return latencies.count();
    }

    private void proxy() {
        try (Socket in = proxyServer.accept(); Socket toReceiver = new Socket(InetAddress.getLoopbackAddress(), receiverServer.getLocalPort())) {
            toReceiver.setTcpNoDelay(true);
            OutputStream down = toReceiver.getOutputStream();
            Thread.ofPlatform().daemon().name("demo-tcp-release").start(() -> release(down));
            DataInputStream up = new DataInputStream(in.getInputStream());
            byte[] frame = new byte[FRAME];
            while (open) {
                up.readFully(frame);
                long now = System.nanoTime();
                long own = now + latencyNanos;          // when this event's bytes would arrive on their own
                long rto = MIN_RTO_NANOS;
                while (random.nextDouble() < loss) {   // lost: resent after the RTO, which doubles each time
                    own += rto;
                    rto *= 2;
                }
                long at = Math.max(own, lastRelease);   // in order: it waits for every earlier event's bytes
                lastRelease = at;
                held.put(new Held(frame.clone(), at, order++));
            }
        } catch (IOException e) {
            if (open) {
                System.out.println("  tcp lane: proxy stopped (" + e.getMessage() + ")");
            }
        }
    }

    private void release(OutputStream down) {
        try {
            while (open) {
                Held h = held.poll(200, TimeUnit.MILLISECONDS);
                if (h != null) {
                    down.write(h.frame);
                    down.flush();
                }
            }
        } catch (IOException | InterruptedException e) {
            if (open) {
                System.out.println("  tcp lane: release stopped (" + e.getMessage() + ")");
            }
        }
    }

    private void receive() {
        try (Socket s = receiverServer.accept(); InputStream raw = s.getInputStream()) {
            DataInputStream in = new DataInputStream(raw);
            while (open) {
                in.readLong();
                long sentAt = in.readLong();
                long now = System.nanoTime();
                latencies.record(now, now - sentAt);
            }
        } catch (IOException e) {
            if (open) {
                System.out.println("  tcp lane: receiver stopped (" + e.getMessage() + ")");
            }
        }
    }

    @Override
    public String name() {
        return "tcp-model";
    }

    @Override
    public String mode() {
        return "model";
    }

    @Override
    public String description() {
        return "the same events as rover-1 over a real TCP connection on loopback, through a proxy in which a lost event"
                + " arrives after Linux's minimum RTO (200 ms, doubling per repeated loss) plus rover-1's one-way latency and"
                + " every later event waits behind it: a model of a lossy link with a real round trip, not a lossy network ("
                + whyNoNamespace + ")";
    }

    @Override
    public void close() {
        open = false;
        try {
            sender.close();
            proxyServer.close();
            receiverServer.close();
        } catch (IOException ignored) {
            // closing: nothing more to do
        }
    }

    /** An event held by the model until its release time. */
    private record Held(byte[] frame, long atNanos, long order) implements Delayed {
        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(atNanos - System.nanoTime(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            Held h = (Held) o;
            return atNanos != h.atNanos ? Long.compare(atNanos, h.atNanos) : Long.compare(order, h.order);
        }
    }
}
