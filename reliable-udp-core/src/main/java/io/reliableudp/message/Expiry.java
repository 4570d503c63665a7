package io.reliableudp.message;

import org.jspecify.annotations.Nullable;

/**
 * When the messages with a time-to-live of one {@link SendQueue} expire: stamps each with its birth
 * time at the first update or send round after it was queued, estimates its age on arrival (its age
 * plus half the smoothed RTT, in whole milliseconds rounded up: what its AGE frame carries), and at
 * each update and round expires what stands at the heads of the channels (the oldest unsent message,
 * and sent ones at the tail that no packet in flight carries). The composer asks it about the message
 * it picks for (re)sending. No scan of the queue, no allocation (docs/messages.md, "Time-to-live").
 */
final class Expiry {

    private final SendQueue queue;
    private final SendChannel[] channels;
    /** Estimated one-way delay to the peer, seconds: half the smoothed RTT (0 before the first sample). */
    private double oneWay;
    private @Nullable PacketLog log;

    Expiry(SendQueue queue) {
        this.queue = queue;
        this.channels = queue.channels;
    }

    /** The packet log (to tell whether a message's packets may still be acknowledged) and the RTT. */
    void setLog(PacketLog log) {
        this.log = log;
    }

    /**
     * At the start of a send round or update at {@code time}: stamps the messages queued since with
     * their birth time, takes the one-way delay estimate, and expires what stands at the heads (the
     * oldest unsent message of each channel, and sent ones at the tail whose packets were all settled).
     */
    void expire(double time) {
        PacketLog l = log;
        if (l != null) {
            double srtt = l.rtt().srttSeconds();
            oneWay = srtt > 0 ? srtt / 2 : 0;
        }
        if (queue.unstamped > 0) {
            stamp(time);
        }
        for (SendChannel ch : channels) {
            if (ch.ttlQueued == 0) {
                continue;
            }
            if (!ch.reliable) {
                while (ch.tail != ch.head && expiredNow(ch, ch.tail & ch.mask, time)) {
                    int i = ch.tail & ch.mask;
                    if (Frames.msgFrameSize(ch.payload[i].length) > queue.payloadBudget) {
                        ch.bigUnreliable--;
                        queue.bigUnreliableQueued--;
                    }
                    queue.unreliableExpired(ch, ch.tail, i);
                }
                continue;
            }
            while (ch.tail != ch.nextUnsent) {
                int i = ch.tail & ch.mask;
                if (ch.state[i] != SendChannel.SENT || !expiredNow(ch, i, time) || carrierInFlight(ch, i)) {
                    break;
                }
                queue.reliableExpired(ch, ch.tail, i);
            }
            while (ch.nextUnsent != ch.head) {
                int i = ch.nextUnsent & ch.mask;
                if (!expiredNow(ch, i, time) || carrierInFlight(ch, i)) {
                    break;
                }
                queue.reliableExpired(ch, ch.nextUnsent, i);
            }
        }
    }

    private void stamp(double time) {
        queue.unstamped = 0;
        for (SendChannel ch : channels) {
            for (int v = Math.max(ch.stampFrom - ch.tail, 0) + ch.tail; v != ch.head; v++) {
                int i = v & ch.mask;
                if (ch.ttl[i] != 0 && Double.isNaN(ch.born[i])) {
                    ch.born[i] = time;
                }
            }
            ch.stampFrom = ch.head;
        }
    }

    /**
     * The age in whole milliseconds (rounded up) the message would have on arrival if it were sent at
     * {@code time}: its age plus the one-way delay estimate. What an AGE frame carries.
     */
    int arrivalAgeMillis(SendChannel ch, int i, double time) {
        double ms = Math.ceil((time - ch.born[i] + oneWay) * 1000);
        return ms >= Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) Math.max(ms, 0);
    }

    /** Whether the message has a time-to-live that its arrival age at {@code time} would reach: it may not be sent. */
    boolean expiredNow(SendChannel ch, int i, double time) {
        int ttl = ch.ttl[i];
        return ttl != 0 && !Double.isNaN(ch.born[i]) && arrivalAgeMillis(ch, i, time) >= ttl;
    }

    /**
     * Whether a packet that carried the message (its last one; for a sliced message, any slice's last)
     * may still be acknowledged: then the peer may have it, and its verdict waits for that packet's.
     */
    boolean carrierInFlight(SendChannel ch, int i) {
        PacketLog l = log;
        if (l == null || ch.state[i] != SendChannel.SENT) {
            return false;
        }
        LargeSend ls = ch.large[i];
        if (ls == null) {
            return l.inFlight(ch.lastSeq[i]);
        }
        for (int s = ls.firstUnacked; s < ls.nextUnsent; s++) {
            if (!ls.acked.get(s) && l.inFlight(ls.lastSeq[s])) {
                return true;
            }
        }
        return false;
    }

    /**
     * When the oldest unsent message with a time-to-live (or unreliable one at the tail) expires,
     * {@code +Infinity} when none waits: the driver's next update then fails it on time.
     */
    double nextExpiry() {
        double t = Double.POSITIVE_INFINITY;
        for (SendChannel ch : channels) {
            if (ch.ttlQueued == 0) {
                continue;
            }
            int v = ch.reliable ? ch.nextUnsent : ch.tail;
            if (v == ch.head) {
                continue;
            }
            int i = v & ch.mask;
            if (ch.ttl[i] != 0 && !Double.isNaN(ch.born[i])) {
                // arrivalAgeMillis >= ttl once time - born + oneWay > (ttl - 1) / 1000
                t = Math.min(t, ch.born[i] + (ch.ttl[i] - 1) / 1000.0 - oneWay + 1e-6);
            }
        }
        return t;
    }
}
