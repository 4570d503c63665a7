package io.reliableudp.message;

import io.reliableudp.link.LinkConditioner;
import io.reliableudp.link.LinkConditionerConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Two message endpoints joined by one link conditioner per direction, driven by a simulated clock.
 * Received messages are copied into lists (per side) for the tests to check.
 */
final class EndpointPair {

    /** The packet layer used by the tests. */
    static PacketLink.Factory linkFactory = MessageEndpoint.DEFAULT_LINK_FACTORY;

    record Received(int channel, int id, byte[] data) {
    }

    final MessageEndpoint a;
    final MessageEndpoint b;
    final LinkConditioner ab;
    final LinkConditioner ba;
    final List<Received> receivedByA = new ArrayList<>();
    final List<Received> receivedByB = new ArrayList<>();
    double time = 100.0;
    boolean recordB = true;
    /**
     * Within a step, also wake the endpoints at the deadlines they name ({@link MessageEndpoint#nextDeadline()}),
     * as the transport's I/O loop does in IMMEDIATE mode (set by tests that measure rates: a pacing
     * controller sends only what its pacing allows at each call); otherwise fixed steps only.
     */
    boolean followDeadlines;
    MessageListener extraB;

    EndpointPair(MessageConfig config, LinkConditionerConfig abConfig, LinkConditionerConfig baConfig) {
        this.ab = new LinkConditioner(abConfig);
        this.ba = new LinkConditioner(baConfig);
        this.a = new MessageEndpoint(config, time, (d, o, l) -> ab.submit(d, o, l, time),
                (c, id, d, o, l) -> receivedByA.add(new Received(c, id, java.util.Arrays.copyOfRange(d, o, o + l))),
                linkFactory);
        this.b = new MessageEndpoint(config, time, (d, o, l) -> ba.submit(d, o, l, time),
                (c, id, d, o, l) -> {
                    if (recordB) {
                        receivedByB.add(new Received(c, id, java.util.Arrays.copyOfRange(d, o, o + l)));
                    }
                    if (extraB != null) {
                        extraB.onMessage(c, id, d, o, l);
                    }
                },
                linkFactory);
    }

    EndpointPair(MessageConfig config) {
        this(config, LinkConditionerConfig.PERFECT, LinkConditionerConfig.PERFECT);
    }

    /** Advances the clock by dt: deliver what is due both ways, then update both endpoints. */
    void step(double dt) {
        double end = time + dt;
        if (followDeadlines) {
            for (int i = 0; i < 1_000; i++) {
                // the loop's timer has a granularity too: a deadline at or before now runs a little later
                double next = Math.max(Math.min(a.nextDeadline(), b.nextDeadline()), time + DEADLINE_GRANULARITY);
                if (next >= end) {
                    break;
                }
                time = next;
                deliverAndUpdate();
            }
        }
        time = end;
        deliverAndUpdate();
    }

    /** Smallest gap between two deadline wake-ups within a step (seconds). */
    static final double DEADLINE_GRANULARITY = 0.0005;

    private void deliverAndUpdate() {
        // at the time they arrive, as the transport hands datagrams over (RTT samples from the arrival)
        ab.poll(time, (d, o, l) -> b.receive(d, o, l, time));
        ba.poll(time, (d, o, l) -> a.receive(d, o, l, time));
        a.update(time);
        b.update(time);
    }

    void run(double seconds, double dt) {
        int steps = (int) Math.round(seconds / dt);
        for (int i = 0; i < steps; i++) {
            step(dt);
        }
    }

    /** Steps until the condition holds or the simulated time limit passes; returns whether it held. */
    boolean runUntil(java.util.function.BooleanSupplier done, double maxSeconds, double dt) {
        double end = time + maxSeconds;
        while (time < end) {
            if (done.getAsBoolean()) {
                return true;
            }
            step(dt);
        }
        return done.getAsBoolean();
    }

    static MessageConfig config(DeliveryMode... modes) {
        List<ChannelConfig> channels = new ArrayList<>();
        for (DeliveryMode m : modes) {
            channels.add(ChannelConfig.of(m));
        }
        return MessageConfig.builder().channels(channels).build();
    }
}
