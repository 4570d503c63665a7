package io.reliableudp.transport;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a server and a client node on 127.0.0.1 in this process and sends {@code args[0]} numbered
 * reliable-ordered messages (plus one encrypted run when {@code args[1]} is "psk"); prints one
 * {@code RESULT ...} line and exits 0 when every message arrived exactly once and in order.
 * Started inside a lossy network namespace by {@link LossyNetworkTest}.
 */
public final class LossyPeerMain {

    private LossyPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        int count = Integer.parseInt(args[0]);
        byte[] key = args.length > 1 && args[1].equals("psk") ? new byte[32] : null;
        if (key != null) {
            key[0] = 42;
        }
        InetAddress lo = InetAddress.getByName("127.0.0.1");
        AtomicInteger next = new AtomicInteger();
        AtomicReference<String> error = new AtomicReference<>();
        CountDownLatch all = new CountDownLatch(count);
        NodeListener serverListener = (peer, channel, id, payload) -> {
            int v = ByteBuffer.wrap(payload).getInt();
            if (v != next.getAndIncrement()) {
                error.compareAndSet(null, "expected " + (next.get() - 1) + " got " + v);
            }
            all.countDown();
        };
        NodeConfig.Builder cfg = NodeConfig.builder().bindAddress(new InetSocketAddress(lo, 0)).preSharedKey(key)
                .timeout(Duration.ofSeconds(10)).connectTimeout(Duration.ofSeconds(10));
        try (ReliableUdpNode server = ReliableUdpNode.start(cfg.build(), serverListener);
             ReliableUdpNode client = ReliableUdpNode.start(cfg.build(), (p, c, i, d) -> { })) {
            Peer peer = client.connect(new InetSocketAddress(lo, server.localAddress().getPort())).get(20, TimeUnit.SECONDS);
            List<CompletableFuture<Delivery>> sends = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                sends.add(peer.send(0, ByteBuffer.allocate(16).putInt(i).array()));
                if (i % 20 == 19) {
                    Thread.sleep(2);
                }
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            boolean done = all.await(30, TimeUnit.SECONDS);
            PeerStats stats = peer.stats();
            System.out.printf("RESULT received=%d ordered=%s resent=%d loss=%.1f%% dropped_by_node=%s%n",
                    count - all.getCount(), error.get() == null, stats.channels().get(0).messagesResent(),
                    stats.packetLossPercent(), server.stats().datagramsDropped());
            System.exit(done && error.get() == null ? 0 : 1);
        }
    }
}
