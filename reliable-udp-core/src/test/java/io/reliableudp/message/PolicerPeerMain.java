package io.reliableudp.message;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.locks.LockSupport;

/**
 * The child JVM of {@link PolicerTest}: a bulk sender and its receiver, two message endpoints over
 * real UDP sockets on 127.0.0.1 (the receiver on port 40001, which the namespace's nftables rule
 * polices), driven by the real clock on one thread. Prints one {@code RESULT} line: goodput after
 * the first second, data packets sent, and those never acknowledged.
 *
 * <p>Arguments: controller (DELIVERY_RATE | GAFFER), seconds.
 */
public final class PolicerPeerMain {

    static final int RECEIVER_PORT = 40001;
    static final int SENDER_PORT = 40002;

    /** After this, the policer's initial bucket and the controller's start are over: the steady loss is counted from here. */
    private static final double STEADY = 2.0;
    private static final boolean TRACE = Boolean.getBoolean("congestion.trace");

    private PolicerPeerMain() {
    }

    public static void main(String[] args) throws IOException {
        MessageConfig.CongestionControl controller = MessageConfig.CongestionControl.valueOf(args[0]);
        double seconds = Double.parseDouble(args[1]);
        MessageConfig config = MessageConfig.builder()
                .channels(java.util.List.of(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED)))
                .congestionControl(controller).build();
        InetSocketAddress rxAddress = new InetSocketAddress("127.0.0.1", RECEIVER_PORT);
        InetSocketAddress txAddress = new InetSocketAddress("127.0.0.1", SENDER_PORT);
        try (DatagramChannel rx = DatagramChannel.open(); DatagramChannel tx = DatagramChannel.open()) {
            rx.bind(rxAddress).configureBlocking(false);
            tx.bind(txAddress).configureBlocking(false);
            long origin = System.nanoTime();
            long[] receivedBytes = {0};
            MessageEndpoint sender = new MessageEndpoint(config, 0, (d, o, l) -> send(tx, d, o, l, rxAddress),
                    (c, id, d, o, l) -> { });
            MessageEndpoint receiver = new MessageEndpoint(config, 0, (d, o, l) -> send(rx, d, o, l, txAddress),
                    (c, id, d, o, l) -> receivedBytes[0] += l);
            ByteBuffer buffer = ByteBuffer.allocate(65_536);
            byte[] chunk = new byte[1000];
            double warmup = 1.0;
            long receivedAtWarmup = -1;
            long sentBeforeLastSecond = 0;
            double now = 0;
            double nextTrace = 0;
            long sentAtSteady = -1;
            long lostAtSteady = -1;
            while (now < seconds) {
                now = (System.nanoTime() - origin) / 1e9;
                while (sender.offer(0, chunk) >= 0) {
                    // a bulk sender: its queue is always full
                }
                drain(rx, buffer, receiver);
                drain(tx, buffer, sender);
                sender.update(now);
                receiver.update(now);
                if (receivedAtWarmup < 0 && now >= warmup) {
                    receivedAtWarmup = receivedBytes[0];
                }
                if (sentAtSteady < 0 && now >= STEADY) {
                    sentAtSteady = sender.stats().packetsSent();
                }
                if (lostAtSteady < 0 && now >= STEADY + PacketLog.LOSS_TIMEOUT_SECONDS + 0.05) {
                    lostAtSteady = sender.stats().packetsLost();
                }
                if (now < seconds - PacketLog.LOSS_TIMEOUT_SECONDS - 0.05) {
                    // packets sent before this have all been settled (acked or timed out) at the end
                    sentBeforeLastSecond = sender.stats().packetsSent();
                }
                if (TRACE && now >= nextTrace) {
                    nextTrace = now + 0.25;
                    CongestionController c = sender.congestionController();
                    MessageStats st = sender.stats();
                    String model = c instanceof DeliveryRateController d ? String.format(" %s bw=%.0f minRtt=%.2fms randomLoss=%.3f",
                            d.mode(), d.bandwidth(), d.minRtt() * 1000, d.randomLoss()) : "";
                    System.out.printf("t=%.2f pacing=%.0f cwnd=%d inflight=%d sent=%d lost=%d received=%d%s%n", now,
                            c.pacingRateBytesPerSecond(), c.inflightLimitBytes(), st.bytesInFlight(), st.packetsSent(),
                            st.packetsLost(), receivedBytes[0], model);
                }
                LockSupport.parkNanos(200_000);
            }
            MessageStats s = sender.stats();
            double goodput = (receivedBytes[0] - receivedAtWarmup) / (now - warmup);
            // lost: data packets never acknowledged within the loss timeout, so those sent in the last second are left out
            double loss = sentBeforeLastSecond == 0 ? 1.0 : s.packetsLost() / (double) sentBeforeLastSecond;
            double steadyLoss = sentBeforeLastSecond <= sentAtSteady ? 1.0
                    : (s.packetsLost() - lostAtSteady) / (double) (sentBeforeLastSecond - sentAtSteady);
            System.out.printf("RESULT controller=%s goodput=%.0f sent=%d settledSent=%d lost=%d loss=%.4f steadyLoss=%.4f"
                    + " refusedByKernel=%d%n", controller, goodput, s.packetsSent(), sentBeforeLastSecond, s.packetsLost(), loss,
                    steadyLoss, refusedByKernel);
        }
    }

    private static long refusedByKernel;

    private static void send(DatagramChannel channel, byte[] data, int offset, int length, SocketAddress to) {
        try {
            channel.send(ByteBuffer.wrap(data, offset, length), to);
        } catch (IOException e) {
            // a datagram dropped by nftables on the output hook fails the send with EPERM: it is lost, as on a wire
            refusedByKernel++;
        }
    }

    private static void drain(DatagramChannel channel, ByteBuffer buffer, MessageEndpoint endpoint) throws IOException {
        while (true) {
            buffer.clear();
            if (channel.receive(buffer) == null) {
                return;
            }
            endpoint.receive(buffer.array(), 0, buffer.position());
        }
    }
}
