package io.reliableudp.transport;

import io.reliableudp.TrafficClass;
import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.MessageConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs a server node on port {@value #SERVER_PORT} and a client node on port {@value #CLIENT_PORT}
 * in this process, both with the node class {@code args[2]} and two reliable channels, the second with
 * the class {@code args[3]} ("-": the node's); the client sends {@code args[4]} messages on each
 * channel, interleaved, to the server, which sends nothing but acks. Both nodes bind {@code args[0]}
 * ("*": the wildcard, a dual-stack socket) and the client connects to {@code args[1]}. Prints one
 * {@code RESULT ...} line and exits 0 when every message arrived. Started inside a network namespace
 * by {@link DscpMarkingTest}, whose nftables counters see the datagrams' DSCP. {@code args[5]}: the
 * socket port, {@code plain} or {@code batched} ({@link NodeConfig#batchedIo()} OFF or ON); the
 * {@code RESULT} line names the port the nodes run on.
 */
public final class DscpPeerMain {

    static final int SERVER_PORT = 41_000;
    static final int CLIENT_PORT = 41_001;

    private DscpPeerMain() {
    }

    public static void main(String[] args) throws Exception {
        InetAddress bind = args[0].equals("*") ? null : InetAddress.getByName(args[0]);
        InetAddress target = InetAddress.getByName(args[1]);
        TrafficClass nodeClass = TrafficClass.valueOf(args[2]);
        TrafficClass channelClass = args[3].equals("-") ? null : TrafficClass.valueOf(args[3]);
        int count = Integer.parseInt(args[4]);
        MessageConfig message = MessageConfig.builder().channels(List.of(
                ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED),
                ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED).trafficClass(channelClass))).build();
        CountDownLatch all = new CountDownLatch(2 * count);
        BatchedIo port = args[5].equals("batched") ? BatchedIo.ON : BatchedIo.OFF;
        NodeConfig.Builder cfg = NodeConfig.builder().message(message).trafficClass(nodeClass).batchedIo(port);
        try (ReliableUdpNode server = ReliableUdpNode.start(cfg.bindAddress(new InetSocketAddress(bind, SERVER_PORT)).build(),
                     (peer, channel, id, payload) -> all.countDown());
             ReliableUdpNode client = ReliableUdpNode.start(cfg.bindAddress(new InetSocketAddress(bind, CLIENT_PORT)).build(),
                     (p, c, i, d) -> { })) {
            Peer peer = client.connect(new InetSocketAddress(target, SERVER_PORT)).get(20, TimeUnit.SECONDS);
            List<CompletableFuture<Delivery>> sends = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                sends.add(peer.send(0, ByteBuffer.allocate(16).putInt(i).array()));
                sends.add(peer.send(1, ByteBuffer.allocate(16).putInt(i).array()));
                if (i % 10 == 9) {
                    Thread.sleep(2);
                }
            }
            CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            boolean done = all.await(30, TimeUnit.SECONDS);
            System.out.printf("RESULT received=%d server=%s client=%s%n", 2 * count - all.getCount(),
                    server.portKind().replace(' ', '_'), client.portKind().replace(' ', '_'));
            System.exit(done ? 0 : 1);
        }
    }
}
