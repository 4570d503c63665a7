package io.reliableudp.transport;

import io.reliableudp.message.ChannelStats;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a server and a client node on 127.0.0.1 in this process and streams numbered messages with a
 * time-to-live of {@code args[0]} ms on the reliable-ordered channel, 200 a second for {@code args[1]}
 * seconds; prints {@code STREAMING} when the stream starts (the parent then cuts the path for a while)
 * and one {@code RESULT ...} line at the end; exits 0 when every promise held: nothing delivered at
 * an age (as the node tells it) at or above the time-to-live, none delivered twice or out of order,
 * every future done, and every message not delivered either expired or counted as dropped by the
 * receiver. It counts the futures that expired although the message was delivered (the path went
 * black after it arrived and before an ack of it got back) for the test to bound. Started inside a lossy network namespace by
 * {@link TimeToLiveNetnsTest}.
 */
public final class TimeToLivePeerMain {

    private TimeToLivePeerMain() {
    }

    public static void main(String[] args) throws Exception {
        int ttl = Integer.parseInt(args[0]);
        int seconds = Integer.parseInt(args[1]);
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        ConcurrentHashMap<Integer, Long> deliveredAt = new ConcurrentHashMap<>();
        ConcurrentHashMap<Integer, Integer> deliveries = new ConcurrentHashMap<>();
        AtomicReference<String> error = new AtomicReference<>();
        AtomicReference<Peer> serverPeer = new AtomicReference<>();
        int[] last = {-1};
        long[] maxAge = {-1};
        NodeListener serverListener = new NodeListener() {
            @Override
            public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
                onMessage(peer, channel, messageId, payload, -1);
            }

            @Override
            public void onMessage(Peer peer, int channel, int messageId, byte[] payload, int ageMillis) {
                int v = ByteBuffer.wrap(payload).getInt();
                deliveredAt.put(v, System.nanoTime());
                deliveries.merge(v, 1, Integer::sum);
                if (ageMillis < 0 || ageMillis >= ttl) {
                    error.compareAndSet(null, "message " + v + " delivered at age " + ageMillis);
                }
                maxAge[0] = Math.max(maxAge[0], ageMillis);
                if (v <= last[0]) {
                    error.compareAndSet(null, "message " + v + " after " + last[0]);
                }
                last[0] = v;
            }

            @Override
            public void onConnected(Peer peer) {
                serverPeer.set(peer);
            }
        };
        NodeConfig.Builder cfg = NodeConfig.builder().bindAddress(new InetSocketAddress(lo, 0))
                .timeout(Duration.ofSeconds(10)).connectTimeout(Duration.ofSeconds(10));
        try (ReliableUdpNode server = ReliableUdpNode.start(cfg.build(), serverListener);
             ReliableUdpNode client = ReliableUdpNode.start(cfg.build(), (p, c, i, d) -> { })) {
            Peer peer = client.connect(new InetSocketAddress(lo, server.localAddress().getPort())).get(20, TimeUnit.SECONDS);
            List<CompletableFuture<Delivery>> sends = new ArrayList<>();
            System.out.println("STREAMING");
            System.out.flush();
            long start = System.nanoTime();
            int count = 200 * seconds;
            for (int i = 0; i < count; i++) {
                sends.add(peer.send(0, ByteBuffer.allocate(32).putInt(i).array(), Duration.ofMillis(ttl)));
                long due = start + (i + 1) * 5_000_000L;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
            }
            try {
                CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            } catch (Exception expected) {
                // some expired: each is checked below
            }
            Thread.sleep(500);
            int expired = 0;
            int delivered = 0;
            int undelivered = 0;
            int afterOutage = 0;
            int expiredButDelivered = 0;
            for (int i = 0; i < count; i++) {
                CompletableFuture<Delivery> f = sends.get(i);
                if (!f.isDone()) {
                    error.compareAndSet(null, "message " + i + " has no verdict");
                    continue;
                }
                boolean exp = false;
                if (f.isCompletedExceptionally()) {
                    try {
                        f.join();
                    } catch (CompletionException e) {
                        exp = e.getCause() instanceof DeliveryException d && d.reason() == DeliveryFailure.EXPIRED;
                        if (!exp) {
                            error.compareAndSet(null, "message " + i + " failed: " + e.getCause());
                        }
                    }
                }
                int n = deliveries.getOrDefault(i, 0);
                if (n > 1) {
                    error.compareAndSet(null, "message " + i + " delivered " + n + " times");
                }
                if (n == 1) {
                    delivered++;
                    if (exp) {
                        expiredButDelivered++; // delivered, then every ack of it lost in the outage (docs/messages.md)
                    }
                    if (i > count * 3 / 4) {
                        afterOutage++;
                    }
                } else {
                    undelivered++;
                    if (exp) {
                        expired++;
                    }
                }
            }
            ChannelStats rs = serverPeer.get().stats().channels().get(0);
            if (undelivered - expired != rs.receivedExpired()) {
                error.compareAndSet(null, "undelivered " + undelivered + ", expired " + expired + ", dropped by the receiver "
                        + rs.receivedExpired());
            }
            System.out.printf("RESULT sent=%d delivered=%d expired=%d receiverDropped=%d skipped=%d afterOutage=%d maxAge=%d"
                    + " expiredButDelivered=%d ok=%s%n",
                    count, delivered, expired, rs.receivedExpired(), rs.messagesSkipped(), afterOutage, maxAge[0], expiredButDelivered,
                    error.get() == null ? "true" : error.get());
            System.exit(error.get() == null ? 0 : 1);
        }
    }
}
