package io.reliableudp.message;

import io.reliableudp.link.LinkConditioner;
import io.reliableudp.link.LinkConditionerConfig;
import java.nio.ByteBuffer;
import java.util.function.Predicate;

/**
 * A sender A and a receiver B of one stream of numbered reliable messages over one seeded link
 * conditioner per direction, on a simulated clock in fine steps, for the loss-recovery tests.
 *
 * <p>Two schedules: {@code prompt} stands for a scheduler that sends when something is due (A flushes
 * each event at once and whenever {@link MessageEndpoint#nextResendDueTime()} has come; B acknowledges
 * within one step of a data packet's arrival); otherwise both sides only {@code update} (the tick
 * schedule at the send rate). {@link #dropAB} drops chosen datagrams from A before the link.
 */
final class LossSim {

    static final double STEP = 0.0005;
    /** First payload byte of every stream message: its index follows, so a datagram carrying it can be found. */
    static final byte MARK = (byte) 0xA5;

    final MessageEndpoint a;
    final MessageEndpoint b;
    final LinkConditioner ab;
    final LinkConditioner ba;
    final boolean prompt;
    /** Clock step in seconds. */
    final double step;
    double time = 100.0;
    /** Datagrams from A for which this answers true are dropped before the link (counted in {@link #dropped}). */
    Predicate<byte[]> dropAB = d -> false;
    int dropped;
    /** Datagrams from B for which this answers true are dropped before the link (counted in {@link #droppedBA}). */
    Predicate<byte[]> dropBA = d -> false;
    int droppedBA;
    /** B takes nothing from the link before this time (a stalled receiver: what arrives waits). */
    double holdABUntil = Double.NEGATIVE_INFINITY;
    /** Per message index: when it was offered, when B delivered it (-1 until then), how often B delivered it. */
    final double[] sentAt;
    final double[] deliveredAt;
    final int[] deliveries;
    int offered;
    private boolean bGotData;

    LossSim(MessageConfig config, LinkConditionerConfig abConfig, LinkConditionerConfig baConfig, boolean prompt, int capacity) {
        this(config, abConfig, baConfig, prompt, capacity, STEP);
    }

    LossSim(MessageConfig config, LinkConditionerConfig abConfig, LinkConditionerConfig baConfig, boolean prompt, int capacity,
            double step) {
        this.step = step;
        this.ab = new LinkConditioner(abConfig);
        this.ba = new LinkConditioner(baConfig);
        this.prompt = prompt;
        this.sentAt = new double[capacity];
        this.deliveredAt = new double[capacity];
        this.deliveries = new int[capacity];
        java.util.Arrays.fill(deliveredAt, -1);
        this.a = new MessageEndpoint(config, time, (d, o, l) -> {
            byte[] copy = java.util.Arrays.copyOfRange(d, o, o + l);
            if (dropAB.test(copy)) {
                dropped++;
            } else {
                ab.submit(d, o, l, time);
            }
        }, (c, id, d, o, l) -> { });
        this.b = new MessageEndpoint(config, time, (d, o, l) -> {
            if (dropBA.test(java.util.Arrays.copyOfRange(d, o, o + l))) {
                droppedBA++;
            } else {
                ba.submit(d, o, l, time);
            }
        }, (c, id, d, o, l) -> {
            int index = ByteBuffer.wrap(d, o + 1, 4).getInt();
            if (deliveries[index]++ == 0) {
                deliveredAt[index] = time;
            }
        });
        if (prompt) {
            // B acknowledges within a step of a data packet's arrival: the resend timer may count on that
            a.peerAcksWithin(Math.max(config.ackDelaySeconds(), step));
            b.peerAcksWithin(Math.max(config.ackDelaySeconds(), step));
        }
    }

    /** A payload of {@code size} bytes (at least 5) for message {@code index}. */
    static byte[] payload(int index, int size) {
        byte[] p = new byte[Math.max(5, size)];
        p[0] = MARK;
        ByteBuffer.wrap(p, 1, 4).putInt(index);
        for (int i = 5; i < p.length; i++) {
            p[i] = (byte) (index * 31 + i);
        }
        return p;
    }

    /** Whether the datagram carries message {@code index} of the stream. */
    static boolean carries(byte[] datagram, int index) {
        byte[] p = payload(index, 5);
        outer:
        for (int i = 0; i + 5 <= datagram.length; i++) {
            for (int k = 0; k < 5; k++) {
                if (datagram[i + k] != p[k]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /**
     * A prompt sim over a clean 20 ms link (seeds 1 and 2) whose first {@code warmUp} messages at 60 Hz
     * settled the RTT estimate, every one of them acknowledged.
     */
    static LossSim warm(MessageConfig config, int warmUp, int capacity) {
        LossSim sim = new LossSim(config, link(20, 0, 0, 1), link(20, 0, 0, 2), true, capacity);
        for (int i = 0; i < warmUp; i++) {
            sim.offer(64);
            sim.run(1.0 / 60);
        }
        sim.run(0.2);
        if (sim.a.hasPendingReliable()) {
            throw new AssertionError("warm-up messages still unacknowledged on a clean link");
        }
        return sim;
    }

    /** Offers the next message of the stream on channel 0 (and sends it at once when prompt). */
    int offer(int size) {
        int index = offered++;
        sentAt[index] = time;
        if (a.offer(0, payload(index, size)) < 0) {
            throw new AssertionError("queue full at message " + index);
        }
        if (prompt) {
            a.flush(time);
        }
        return index;
    }

    /** One clock step: deliveries both ways, then the schedule. */
    void step() {
        time += step;
        bGotData = false;
        if (time >= holdABUntil) {
            ab.poll(time, (d, o, l) -> {
                b.receive(d, o, l);
                bGotData = true;
            });
        }
        ba.poll(time, a::receive);
        a.update(time);
        b.update(time);
        if (prompt) {
            if (a.nextResendDueTime() <= time) {
                a.flush(time);
            }
            if (bGotData) {
                b.flush(time);
            }
        }
    }

    void run(double seconds) {
        double end = time + seconds;
        while (time < end - 1e-9) {
            step();
        }
    }

    /** Steps until message {@code index} was delivered or {@code maxSeconds} passed; returns whether it was. */
    boolean runUntilDelivered(int index, double maxSeconds) {
        double end = time + maxSeconds;
        while (deliveredAt[index] < 0 && time < end) {
            step();
        }
        return deliveredAt[index] >= 0;
    }

    /** One reliable-ordered channel (with {@code redundancy}), no congestion avoidance unless {@code congestion}. */
    static MessageConfig config(int redundancy, boolean congestion) {
        return config(DeliveryMode.RELIABLE_ORDERED, redundancy, congestion);
    }

    /**
     * One channel of {@code mode} (with {@code redundancy}), no congestion avoidance unless {@code congestion}.
     * TICK mode: this harness runs the schedule itself (its "prompt" schedule flushes every step).
     */
    static MessageConfig config(DeliveryMode mode, int redundancy, boolean congestion) {
        return MessageConfig.builder()
                .channels(java.util.List.of(ChannelConfig.of(mode).redundancy(redundancy)))
                .congestionAvoidance(congestion)
                .sendMode(MessageConfig.SendMode.TICK)
                .build();
    }

    /** A link of {@code latencyMillis} plus uniform jitter, with random loss. */
    static LinkConditionerConfig link(double latencyMillis, double jitterMillis, double loss, long seed) {
        return new LinkConditionerConfig(latencyMillis, jitterMillis, loss, 0, 1, 0, 0, 0, 0, 0, 1 << 20, seed);
    }
}
