package io.reliableudp.spring.core;

import io.reliableudp.spring.support.EnvelopeCodec;
import io.reliableudp.spring.support.ReliableUdpMessageMapper;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.support.UdpChannel;
import io.reliableudp.transport.Peer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The sends of a {@link ReliableUdpTemplate} on a channel of {@link AckMode#PROCESSED}: each is a
 * correlated one-way message (the envelope's processed-acknowledgement flag) whose future completes
 * when the peer's node acknowledged it and the receiving container answered that the listener returned,
 * within the template's reply timeout; an error answer fails it with a {@link RemoteListenerException}.
 * The answer is matched by the node's {@link UdpReplyCorrelator} and completed on the template's reply
 * executor. Thread-safe; no state of its own.
 */
final class ProcessedSends {

    private final ReliableUdpTemplate template;

    ProcessedSends(ReliableUdpTemplate template) {
        this.template = template;
    }

    /**
     * A send of {@link AckMode#PROCESSED}: a correlated one-way message; its future completes when the
     * node acknowledged it and the receiving container answered that the listener returned. To a peer
     * whose address is known it is handed over at once (keeping the call order); to a group once the
     * instance is chosen and connected.
     */
    CompletableFuture<SendResult> send(SendTarget target, UdpChannel channel, ReliableUdpMessageMapper.Outbound outbound) {
        CompletableFuture<SendResult> result = new CompletableFuture<>();
        InetSocketAddress address = target.address();
        if (address != null) {
            send(result, target, address, channel, outbound);
            return result;
        }
        CompletableFuture<Peer> peerFuture;
        try {
            peerFuture = target.resolver().get();
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (RuntimeException e) {
            peerFuture = CompletableFuture.failedFuture(e);
        }
        peerFuture.whenComplete((peer, error) -> {
            if (error != null) {
                result.completeExceptionally(ReliableUdpTemplate.toFailure(error, target.label(), channel));
                return;
            }
            send(result, SendTarget.connected(template.getNode().peerDirectory(), target.label(), peer), peer.address(), channel, outbound);
        });
        return result;
    }

    private void send(CompletableFuture<SendResult> result, SendTarget target, InetSocketAddress address, UdpChannel channel,
            ReliableUdpMessageMapper.Outbound outbound) {
        String label = target.label();
        Duration timeout = template.getReplyTimeout();
        UdpReplyCorrelator correlator = template.getNode().replyCorrelator();
        CompletableFuture<Void> handled = new CompletableFuture<>();
        long id = correlator.register(address, (in, envelope) -> {
            try {
                template.replyExecutor().execute(() -> {
                    if (envelope.isError()) {
                        handled.completeExceptionally(RemoteListenerException.of(label, envelope));
                    } else {
                        handled.complete(null);
                    }
                });
            } catch (RuntimeException e) {
                handled.completeExceptionally(e);
            }
        });
        result.whenComplete((r, e) -> correlator.cancel(id));
        CompletableFuture<SendResult> sent;
        try {
            sent = template.doSend(target, channel, outbound, EnvelopeCodec.FLAG_ACK, id);
        } catch (RuntimeException e) {
            correlator.cancel(id);
            result.completeExceptionally(e);
            if (e instanceof IllegalArgumentException) {
                throw e;
            }
            return;
        }
        sent.whenComplete((r, e) -> {
            if (e != null) {
                result.completeExceptionally(e);
            }
        });
        sent.thenCombine(handled, (r, ignored) -> r).whenComplete((r, e) -> {
            if (e == null) {
                result.complete(r);
            } else {
                result.completeExceptionally(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            }
        });
        CompletableFuture.delayedExecutor(timeout.toNanos(), TimeUnit.NANOSECONDS).execute(() -> {
            if (!result.isDone()) {
                result.completeExceptionally(new ReliableUdpReplyTimeoutException(label, channel.name(), id, timeout));
            }
        });
    }
}
