package io.reliableudp.demo.node;

import io.reliableudp.demo.node.DemoEvents.Frame;
import io.reliableudp.demo.node.DemoEvents.Position;
import io.reliableudp.demo.node.DemoEvents.StatusQuery;
import io.reliableudp.demo.node.DemoEvents.StatusReply;
import io.reliableudp.demo.node.DemoEvents.Telemetry;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.ReplyingReliableUdpTemplate;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32;

/**
 * What one rover sends, through its {@link ReliableUdpTemplate}: positions (reliable-ordered),
 * telemetry (unreliable-sequenced), camera frames (reliable-unordered, large) and status queries
 * (request/reply, through its {@link ReplyingReliableUdpTemplate}). Called by one thread (the web application's traffic thread); every reliable send is
 * booked in the {@link Ledger} with how it ends.
 */
public final class RoverDriver {

    /** Bytes of one camera frame: about 14 slices of 1 KB, plus the JSON's base64. */
    static final int FRAME_BYTES = 16 * 1024;

    private final ReliableUdpTemplate template;
    private final ReplyingReliableUdpTemplate requests;
    private final Ledger.Rover book;
    private final Ledger.Epoch epochBook;
    private final String name;
    private final int epoch;
    private final SplittableRandom random;
    private final byte[] pixels = new byte[FRAME_BYTES];
    private long positionSeq;
    private long telemetrySeq;
    private long frameSeq;

    RoverDriver(ReliableUdpTemplate template, ReplyingReliableUdpTemplate requests, Ledger ledger, String name, int epoch) {
        this.template = template;
        this.requests = requests;
        this.book = ledger.rover(name);
        this.epochBook = book.epoch(epoch);
        this.name = name;
        this.epoch = epoch;
        this.random = new SplittableRandom(name.hashCode() * 31L + epoch);
    }

    /** Sends the next position; returns its sequence number. */
    public long sendPosition(long nowNanos) {
        long s = positionSeq++;
        double a = s / 40.0 + name.hashCode() % 7;
        CompletableFuture<?> f = template.send("station", "positions",
                new Position(name, epoch, s, Math.cos(a) * 50, Math.sin(a) * 50, nowNanos));
        epochBook.positionSent(s, f, name);
        return s;
    }

    /** Sends one telemetry sample, best effort. */
    public void sendTelemetry(long nowNanos) {
        long s = telemetrySeq++;
        template.sendUnreliable("station", "telemetry", new Telemetry(name, s, 12.6 - (s % 1000) * 0.001, nowNanos))
                .whenComplete((r, e) -> {
                    if (e != null && book.telemetryRejected.getAndIncrement() == 0) {
                        System.out.println("  " + name + ": telemetry send rejected: " + Ledger.reason(e));
                    }
                });
        book.telemetrySent.incrementAndGet();
    }

    /** Sends one camera frame (large: the library slices it). */
    public void sendFrame(long nowNanos) {
        long s = frameSeq++;
        random.nextBytes(pixels);
        byte[] copy = pixels.clone();
        CRC32 crc = new CRC32();
        crc.update(copy);
        CompletableFuture<?> f = template.send("station", "frames", new Frame(name, epoch, s, copy, crc.getValue(), nowNanos));
        epochBook.frameSent(s, f, name);
    }

    /** Asks the station how much of this epoch arrived (request/reply, 3 s timeout). */
    public void query() {
        book.queries.incrementAndGet();
        requests.sendAndReceive("station", "requests", new StatusQuery(name, epoch), StatusReply.class, Duration.ofSeconds(3))
                .whenComplete((reply, e) -> {
                    if (e == null && reply != null) {
                        book.replies.incrementAndGet();
                    } else {
                        book.queryFailures.incrementAndGet();
                    }
                });
    }

    /** The epoch this driver sends for. */
    public int epoch() {
        return epoch;
    }
}
