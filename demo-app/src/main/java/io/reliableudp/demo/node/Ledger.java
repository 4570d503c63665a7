package io.reliableudp.demo.node;

import io.reliableudp.spring.core.ReliableUdpSendException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's bookkeeping, shared by every node of the process: what each rover sent and how each
 * send ended (acknowledged, or failed with a reason), what the station received and in which order,
 * and the delivery latency of each stream. From it come the page's numbers, the status line and the
 * verdict at the end (a reliable message acknowledged but never delivered, or delivered out of order,
 * fails the run).
 */
public final class Ledger {

    /** Latency samples kept per stream (the page shows percentiles over the last {@link #WINDOW_NANOS}). */
    static final int SAMPLES = 4096;
    /** The window of the live percentiles. */
    public static final long WINDOW_NANOS = 5_000_000_000L;

    private final Map<String, Rover> rovers = new ConcurrentHashMap<>();
    private final Map<String, Latencies> lanes = new ConcurrentHashMap<>();
    private final AtomicLong printedFailures = new AtomicLong();

    /** The book of one rover (all its epochs). */
    public Rover rover(String name) {
        return rovers.computeIfAbsent(name, Rover::new);
    }

    /** Every rover's book, by name. */
    public Map<String, Rover> rovers() {
        return new TreeMap<>(rovers);
    }

    /** Latencies of a lane that is not a rover (the TCP lane). */
    public Latencies lane(String name) {
        return lanes.computeIfAbsent(name, n -> new Latencies());
    }

    /** The station's listener got a position: order check and delivery latency. */
    void stationGotPosition(DemoEvents.Position p, long nowNanos) {
        Rover r = rover(p.rover());
        r.epoch(p.epoch()).positionDelivered(p.seq());
        r.positionLatency.record(nowNanos, nowNanos - p.sentAtNanos());
    }

    /** The station got a frame (intact: its checksum matched). */
    void stationGotFrame(DemoEvents.Frame f, boolean intact) {
        rover(f.rover()).epoch(f.epoch()).frameDelivered(intact);
    }

    /** The station's Integration flow got a telemetry sample. */
    void stationGotTelemetry(DemoEvents.Telemetry t, long nowNanos) {
        rover(t.rover()).telemetryReceived.incrementAndGet();
    }

    /** Prints one failed reliable send (the first 20, then every 100th: a killed rover fails many at once). */
    void printFailure(String what, Throwable error) {
        long n = printedFailures.incrementAndGet();
        if (n <= 20 || n % 100 == 0) {
            System.out.println("  " + what + " failed: " + reason(error) + (n == 20 ? " (further failures: every 100th)" : ""));
        }
    }

    /** The reason of a failed send, as the library names it. */
    static String reason(Throwable error) {
        Throwable e = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (e instanceof ReliableUdpSendException s) {
            return s.reason().name();
        }
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }

    /** One rover's streams. */
    public final class Rover {
        private final String name;
        private final Map<Integer, Epoch> epochs = new ConcurrentHashMap<>();
        final AtomicLong telemetrySent = new AtomicLong();
        final AtomicLong telemetryReceived = new AtomicLong();
        final AtomicLong telemetryRejected = new AtomicLong();
        final AtomicLong queries = new AtomicLong();
        final AtomicLong replies = new AtomicLong();
        final AtomicLong queryFailures = new AtomicLong();
        final Latencies positionLatency = new Latencies();

        Rover(String name) {
            this.name = name;
        }

        /** The book of one epoch. */
        public Epoch epoch(int epoch) {
            return epochs.computeIfAbsent(epoch, Epoch::new);
        }

        /** Delivery latency of the positions (send to the station's listener). */
        public Latencies positionLatency() {
            return positionLatency;
        }

        /** Telemetry samples sent / received (unreliable-sequenced: some are lost on purpose). */
        public long telemetrySent() {
            return telemetrySent.get();
        }

        /** Telemetry samples the station received. */
        public long telemetryReceived() {
            return telemetryReceived.get();
        }

        /** Status queries sent, answered, failed (request/reply). */
        public long[] queries() {
            return new long[] { queries.get(), replies.get(), queryFailures.get() };
        }

        /** Totals over every epoch. */
        public Totals totals() {
            Totals t = new Totals();
            for (Epoch e : epochs.values()) {
                t.add(e);
            }
            return t;
        }

        /** Every epoch, oldest first. */
        public List<Epoch> epochs() {
            return new ArrayList<>(new TreeMap<>(epochs).values());
        }

        /** The rover's name. */
        public String name() {
            return name;
        }
    }

    /** One start of a rover's node: its reliable streams. */
    public final class Epoch {
        final int epoch;
        final Stream positions = new Stream();
        final Stream frames = new Stream();
        final AtomicLong framesCorrupt = new AtomicLong();
        // station side, written by the one listener thread of (peer, channel)
        private long expectedSeq;
        final AtomicLong outOfOrder = new AtomicLong();

        Epoch(int epoch) {
            this.epoch = epoch;
        }

        /** A position was handed to the template: track how its send ends. */
        public void positionSent(long seq, CompletableFuture<?> send, String rover) {
            positions.track(seq, send, rover + " position #" + seq + " (epoch " + epoch + ")");
        }

        /** A frame was handed to the template. */
        public void frameSent(long seq, CompletableFuture<?> send, String rover) {
            frames.track(seq, send, rover + " frame #" + seq + " (epoch " + epoch + ")");
        }

        /** The station's listener got a position (serially per rover connection). */
        void positionDelivered(long seq) {
            if (seq != expectedSeq) {
                outOfOrder.incrementAndGet();
                System.out.println("  ORDER: epoch " + epoch + " position #" + seq + " arrived, #" + expectedSeq + " expected");
            }
            expectedSeq = seq + 1;
            positions.delivered.incrementAndGet();
        }

        /** The station got a frame; intact says whether its checksum matched. */
        void frameDelivered(boolean intact) {
            if (intact) {
                frames.delivered.incrementAndGet();
            } else {
                framesCorrupt.incrementAndGet();
            }
        }

        /** The epoch number. */
        public int number() {
            return epoch;
        }
    }

    /** One reliable stream of one epoch. */
    final class Stream {
        final AtomicLong sent = new AtomicLong();
        final AtomicLong acked = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final AtomicLong delivered = new AtomicLong();
        final AtomicLong maxAckedSeq = new AtomicLong(-1);
        final Map<String, AtomicLong> failures = new ConcurrentHashMap<>();

        void track(long seq, CompletableFuture<?> send, String what) {
            sent.incrementAndGet();
            send.whenComplete((r, e) -> {
                if (e == null) {
                    acked.incrementAndGet();
                    maxAckedSeq.accumulateAndGet(seq, Math::max);
                } else {
                    failed.incrementAndGet();
                    failures.computeIfAbsent(reason(e), k -> new AtomicLong()).incrementAndGet();
                    printFailure(what, e);
                }
            });
        }

        long pending() {
            return sent.get() - acked.get() - failed.get();
        }
    }

    /** Sums over epochs: what the page and the verdict need. */
    public static final class Totals {
        /** Positions sent, acknowledged, failed with a reason, delivered, still pending. */
        public long positionsSent, positionsAcked, positionsFailed, positionsDelivered, positionsPending;
        /**
         * Acknowledged positions the station's listener has not had yet. Normal for a moment (the ack
         * can come back before the listener's thread runs); once traffic stopped and the listeners had
         * time to catch up, each one left is a lost reliable message.
         */
        public long positionsUndelivered;
        /** Positions delivered out of order (must stay 0). */
        public long outOfOrder;
        /** Frames sent, acknowledged, failed, delivered intact, corrupt (must stay 0), acknowledged but not delivered yet. */
        public long framesSent, framesAcked, framesFailed, framesDelivered, framesCorrupt, framesUndelivered;
        /** Failures by reason over both streams. */
        public final Map<String, Long> failures = new TreeMap<>();

        void add(Epoch e) {
            positionsSent += e.positions.sent.get();
            positionsAcked += e.positions.acked.get();
            positionsFailed += e.positions.failed.get();
            positionsDelivered += e.positions.delivered.get();
            positionsPending += e.positions.pending();
            // ordered: the listener saw seq 0..delivered-1, so any acknowledged seq at or past that is lost
            positionsUndelivered += Math.max(0, e.positions.maxAckedSeq.get() + 1 - e.positions.delivered.get());
            outOfOrder += e.outOfOrder.get();
            framesSent += e.frames.sent.get();
            framesAcked += e.frames.acked.get();
            framesFailed += e.frames.failed.get();
            framesDelivered += e.frames.delivered.get();
            framesCorrupt += e.framesCorrupt.get();
            framesUndelivered += Math.max(0, e.frames.acked.get() - e.frames.delivered.get());
            e.positions.failures.forEach((k, v) -> failures.merge("position " + k, v.get(), Long::sum));
            e.frames.failures.forEach((k, v) -> failures.merge("frame " + k, v.get(), Long::sum));
        }

        /** While traffic flows: nothing delivered out of order, no frame corrupt. */
        public boolean inOrder() {
            return outOfOrder == 0 && framesCorrupt == 0;
        }

        /**
         * After traffic stopped and the listeners caught up: every reliable message delivered in order
         * or failed with a reason (none pending, none acknowledged but undelivered, none reordered).
         */
        public boolean complete() {
            return inOrder() && positionsUndelivered == 0 && framesUndelivered == 0 && positionsPending == 0;
        }
    }

    /** A ring of (time, latency) samples; percentiles over a recent window. Thread-safe. */
    public static final class Latencies {
        private final long[] at = new long[SAMPLES];
        private final long[] micros = new long[SAMPLES];
        private int next;
        private long count;

        /** Records one delivery latency. */
        public synchronized void record(long nowNanos, long latencyNanos) {
            at[next] = nowNanos;
            micros[next] = latencyNanos / 1_000;
            next = (next + 1) % SAMPLES;
            count++;
        }

        /** Samples recorded since the start. */
        public synchronized long count() {
            return count;
        }

        /** p50, p90, p99 and max in milliseconds over the samples of the last window; NaN without any. */
        public synchronized Map<String, Double> percentiles(long nowNanos) {
            long[] window = new long[SAMPLES];
            int n = 0;
            for (int i = 0; i < SAMPLES && i < count; i++) {
                if (nowNanos - at[i] <= WINDOW_NANOS) {
                    window[n++] = micros[i];
                }
            }
            Map<String, Double> out = new LinkedHashMap<>();
            long[] w = Arrays.copyOf(window, n);
            Arrays.sort(w);
            out.put("p50", pick(w, 0.50));
            out.put("p90", pick(w, 0.90));
            out.put("p99", pick(w, 0.99));
            out.put("max", n == 0 ? Double.NaN : w[n - 1] / 1000.0);
            out.put("samples", (double) n);
            return out;
        }

        private static double pick(long[] sorted, double q) {
            if (sorted.length == 0) {
                return Double.NaN;
            }
            return sorted[(int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] / 1000.0;
        }
    }
}
