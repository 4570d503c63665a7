package io.reliableudp.transport;

import io.reliableudp.connection.Session;
import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.MessageConfig;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A deliberately small message layer used until {@code io.reliableudp.message.MessageEndpoint} is
 * merged: one message per datagram, explicit per-message acks, resend every 100 ms, per-channel
 * ordering, duplicate suppression and sequencing. Correct but slow; replaced by the real one.
 */
final class InterimSession implements Session {

    private static final byte MSG = 1;
    private static final byte ACK = 2;
    private static final double RESEND = 0.1;

    private final List<ChannelConfig> channels;
    private final Output out;
    private final Input in;
    private final int maxPayload;
    private final int[] nextId;
    private final Map<Integer, Pending> pending = new HashMap<>();
    private final int[] nextExpected;
    private final List<Map<Integer, byte[]>> reorder = new ArrayList<>();
    private final boolean[][] seen;
    private final int[] lastSequenced;
    private final byte[] buf;
    private double time;
    private boolean closed;

    private static final class Pending {
        final int channel;
        final int id;
        final byte[] payload;
        final CompletableFuture<Void> future;
        double sentAt;

        Pending(int channel, int id, byte[] payload, CompletableFuture<Void> future, double sentAt) {
            this.channel = channel;
            this.id = id;
            this.payload = payload;
            this.future = future;
            this.sentAt = sentAt;
        }
    }

    InterimSession(MessageConfig config, double time, Output out, Input in) {
        this.channels = config.channels();
        this.out = out;
        this.in = in;
        this.time = time;
        this.maxPayload = config.datagramBudget() - config.lowerLayerOverhead() - 4;
        int n = channels.size();
        this.nextId = new int[n];
        this.nextExpected = new int[n];
        this.seen = new boolean[n][65_536];
        this.lastSequenced = new int[n];
        java.util.Arrays.fill(lastSequenced, -1);
        for (int i = 0; i < n; i++) {
            reorder.add(new HashMap<>());
        }
        this.buf = new byte[config.datagramBudget()];
    }

    @Override
    public Send send(int channel, byte[] payload) {
        if (closed) {
            return failed(channel, DeliveryFailure.NOT_CONNECTED, "closed");
        }
        if (channel < 0 || channel >= channels.size()) {
            return new Send(channel, -1, CompletableFuture.failedFuture(new IllegalArgumentException("no channel " + channel)));
        }
        if (payload.length > maxPayload) {
            return failed(channel, DeliveryFailure.TOO_LARGE, payload.length + " > " + maxPayload + " bytes");
        }
        int id = nextId[channel];
        nextId[channel] = (id + 1) & 0xffff;
        CompletableFuture<Void> f = new CompletableFuture<>();
        transmit(channel, id, payload);
        if (channels.get(channel).mode().isReliable()) {
            pending.put(channel << 16 | id, new Pending(channel, id, payload, f, time));
        } else {
            f.complete(null);
        }
        return new Send(channel, id, f);
    }

    private static Send failed(int channel, DeliveryFailure failure, String text) {
        return new Send(channel, -1, CompletableFuture.failedFuture(new DeliveryException(failure, text)));
    }

    private void transmit(int channel, int id, byte[] payload) {
        buf[0] = MSG;
        buf[1] = (byte) channel;
        buf[2] = (byte) (id >>> 8);
        buf[3] = (byte) id;
        System.arraycopy(payload, 0, buf, 4, payload.length);
        out.send(buf, 0, 4 + payload.length);
    }

    @Override
    public void receive(byte[] data, int offset, int length) {
        if (closed || length < 4) {
            return;
        }
        int channel = data[offset + 1] & 0xff;
        int id = (data[offset + 2] & 0xff) << 8 | (data[offset + 3] & 0xff);
        if (channel >= channels.size()) {
            return;
        }
        if (data[offset] == ACK) {
            Pending p = pending.remove(channel << 16 | id);
            if (p != null) {
                p.future.complete(null);
            }
            return;
        }
        if (data[offset] != MSG) {
            return;
        }
        DeliveryMode mode = channels.get(channel).mode();
        if (mode.isReliable()) {
            buf[0] = ACK;
            buf[1] = (byte) channel;
            buf[2] = (byte) (id >>> 8);
            buf[3] = (byte) id;
            out.send(buf, 0, 4);
        }
        switch (mode) {
            case RELIABLE_ORDERED -> {
                int ahead = (id - nextExpected[channel]) & 0xffff;
                if (ahead >= 32_768) {
                    return; // old duplicate
                }
                if (ahead > 0) {
                    reorder.get(channel).putIfAbsent(id, java.util.Arrays.copyOfRange(data, offset + 4, offset + length));
                    return;
                }
                in.onMessage(channel, id, data, offset + 4, length - 4);
                nextExpected[channel] = (id + 1) & 0xffff;
                byte[] next;
                while ((next = reorder.get(channel).remove(nextExpected[channel])) != null) {
                    in.onMessage(channel, nextExpected[channel], next, 0, next.length);
                    nextExpected[channel] = (nextExpected[channel] + 1) & 0xffff;
                }
            }
            case RELIABLE_UNORDERED, UNRELIABLE -> {
                if (seen[channel][id]) {
                    return;
                }
                seen[channel][id] = true;
                seen[channel][(id + 32_768) & 0xffff] = false;
                in.onMessage(channel, id, data, offset + 4, length - 4);
            }
            case UNRELIABLE_SEQUENCED -> {
                int last = lastSequenced[channel];
                if (last >= 0 && ((id - last) & 0xffff) >= 32_768 || id == last) {
                    return;
                }
                lastSequenced[channel] = id;
                in.onMessage(channel, id, data, offset + 4, length - 4);
            }
        }
    }

    @Override
    public void update(double now) {
        this.time = now;
        for (Pending p : pending.values()) {
            if (now - p.sentAt >= RESEND) {
                p.sentAt = now;
                transmit(p.channel, p.id, p.payload);
            }
        }
    }

    @Override
    public void flush(double now) {
        this.time = now;
    }

    @Override
    public boolean hasPendingReliable() {
        return !pending.isEmpty();
    }

    @Override
    public void close(DeliveryFailure reason) {
        closed = true;
        for (Pending p : pending.values()) {
            p.future.completeExceptionally(new DeliveryException(reason, "connection closed: " + reason));
        }
        pending.clear();
    }
}
