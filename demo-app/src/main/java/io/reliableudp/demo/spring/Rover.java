package io.reliableudp.demo.spring;

import io.reliableudp.demo.spring.DemoEvents.Ack;
import io.reliableudp.demo.spring.DemoEvents.Position;
import io.reliableudp.demo.spring.DemoEvents.Telemetry;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.SendResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

/** The rover: sends positions (reliable, ordered) and telemetry (unreliable), and measures the acks. */
@Component
@Profile("rover")
class Rover {

    private final ReliableUdpTemplate template;
    final List<CompletableFuture<SendResult>> positionSends = new CopyOnWriteArrayList<>();
    final AtomicLong telemetrySent = new AtomicLong();
    final AtomicLong acks = new AtomicLong();
    final AtomicLong failures = new AtomicLong();
    private final List<Long> ackRttMicros = Collections.synchronizedList(new ArrayList<>());
    private long seq;
    private long telemetrySeq;

    Rover(ReliableUdpTemplate template) {
        this.template = template;
    }

    /** Sends one position to the station. */
    void sendPosition() {
        long s = seq++;
        CompletableFuture<SendResult> f = template.send("station", "positions",
                new Position(s, Math.cos(s / 10.0) * 10, Math.sin(s / 10.0) * 10, System.nanoTime()));
        f.whenComplete((r, e) -> {
            if (e != null) {
                failures.incrementAndGet();
                System.out.println("  rover: position #" + s + " failed: " + e.getMessage());
            }
        });
        positionSends.add(f);
    }

    /** Sends one telemetry sample, best effort. */
    void sendTelemetry() {
        template.sendUnreliable("station", new Telemetry(telemetrySeq++, 12.6 - telemetrySeq * 0.001));
        telemetrySent.incrementAndGet();
    }

    @UdpMessageListener(id = "acks", channels = "acks", peers = "station")
    void onAck(Ack ack) {
        acks.incrementAndGet();
        ackRttMicros.add((System.nanoTime() - ack.sentAtNanos()) / 1_000);
    }

    /** Application-level round trip (position out, ack back) percentile, in milliseconds. */
    double ackRttMillis(double percentile) {
        List<Long> copy;
        synchronized (ackRttMicros) {
            copy = new ArrayList<>(ackRttMicros);
        }
        if (copy.isEmpty()) {
            return Double.NaN;
        }
        Collections.sort(copy);
        return copy.get((int) Math.min(copy.size() - 1, Math.floor(percentile / 100.0 * copy.size()))) / 1000.0;
    }

    long positionsSent() {
        return seq;
    }
}
