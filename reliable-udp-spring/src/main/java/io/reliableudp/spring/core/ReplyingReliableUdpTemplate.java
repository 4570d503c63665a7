package io.reliableudp.spring.core;

import io.reliableudp.spring.support.Envelope;
import io.reliableudp.spring.support.EnvelopeCodec;
import io.reliableudp.spring.support.InboundUdpMessage;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import io.reliableudp.spring.support.ReliableUdpMessageMapper;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.support.UdpChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.support.MessageBuilder;

/**
 * Request/reply over a {@link ReliableUdpTemplate}: sends a request and completes with the remote
 * listener's reply (its return value, or its {@code @SendTo}), correlated automatically, as
 * spring-kafka's {@code ReplyingKafkaTemplate} beside {@code KafkaTemplate}. A class of its own because
 * it is a job of its own: it registers each request with the node's {@link UdpReplyCorrelator}, waits
 * for the reply within a timeout, and converts the reply (or the remote failure) on the template's reply
 * executor, never on the node's receive thread.
 *
 * <p>Everything else is the template's: the peers, channels and defaults, the message mapper, the
 * observation of the request's send, and the reply timeout used when a call gives none
 * ({@link ReliableUdpTemplate#setReplyTimeout}). Several replying templates over one template share
 * its node's correlator. The listener side answers through the template it was given
 * ({@link ReliableUdpTemplate#sendReply}), so a receiving application needs no replying template.
 *
 * <p>Only reliable channels carry requests: a lost request or reply could only time out. A request to
 * a peer group chooses the instance first (by the routing key header, else balanced) and correlates the
 * reply with that instance. Thread-safe.
 */
public class ReplyingReliableUdpTemplate implements ReplyingReliableUdpOperations {

    private final ReliableUdpTemplate template;

    /**
     * Creates a replying template over a template.
     *
     * @param template sends the requests (its node, defaults, mapper, observations and reply timeout)
     */
    public ReplyingReliableUdpTemplate(ReliableUdpTemplate template) {
        this.template = Objects.requireNonNull(template, "template");
    }

    /** The template the requests go through. */
    public ReliableUdpTemplate getTemplate() {
        return template;
    }

    private UdpPeerDirectory directory() {
        return template.getNode().peerDirectory();
    }

    @Override
    public <R> CompletableFuture<@Nullable R> sendAndReceive(String peer, String channel, Object payload, Class<R> replyType) {
        return sendAndReceive(peer, channel, payload, replyType, template.getReplyTimeout());
    }

    @Override
    public <R> CompletableFuture<@Nullable R> sendAndReceive(String peer, String channel, Object payload, Class<R> replyType,
            Duration timeout) {
        UdpChannel c = requireReliable(template.getNode().channels().resolve(channel));
        CompletableFuture<@Nullable Message<?>> reply = directory().group(peer) != null
                ? requestToGroup(peer, null, c, payload, Map.of(), replyType, timeout)
                : request(peer, directory().parseTarget(peer), c, payload, Map.of(), replyType, timeout);
        return reply.thenApply(m -> m == null ? null : replyType.cast(m.getPayload()));
    }

    @Override
    public CompletableFuture<@Nullable Message<?>> sendAndReceive(Message<?> request, Class<?> replyType, @Nullable Duration timeout) {
        MessageHeaders h = request.getHeaders();
        Object channelHeader = h.get(ReliableUdpHeaders.SEND_CHANNEL);
        UdpChannel channel = requireReliable(template.getNode().channels().resolve(channelHeader != null ? channelHeader.toString() : template.defaultChannelName()));
        Object peerHeader = h.get(ReliableUdpHeaders.PEER);
        InetSocketAddress address;
        String label;
        if (peerHeader instanceof InetSocketAddress a) {
            address = a;
            label = directory().label(a);
        } else {
            label = peerHeader != null ? peerHeader.toString() : template.requireDefaultPeer();
            if (directory().group(label) != null) {
                return requestToGroup(label, h.get(ReliableUdpHeaders.ROUTING_KEY), channel, request.getPayload(), h, replyType,
                        timeout != null ? timeout : template.getReplyTimeout());
            }
            address = directory().parseTarget(label);
        }
        return request(label, address, channel, request.getPayload(), h, replyType, timeout != null ? timeout : template.getReplyTimeout());
    }

    /**
     * A request to a group: the instance is chosen (and re-routed while not handed off) first, then the
     * reply is correlated with that instance.
     */
    private CompletableFuture<@Nullable Message<?>> requestToGroup(String label, @Nullable Object key, UdpChannel channel,
            Object payload, Map<String, ?> headers, Class<?> replyType, Duration timeout) {
        Objects.requireNonNull(replyType, "replyType");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the reply timeout must be > 0, was " + timeout);
        }
        return directory().resolve(label, key).handle((peer, error) -> {
            if (error != null) {
                return CompletableFuture.<@Nullable Message<?>>failedFuture(ReliableUdpTemplate.toFailure(error, label, channel));
            }
            return request(channel, payload, headers, replyType, timeout, SendTarget.connected(directory(), label, peer));
        }).thenCompose(f -> f);
    }

    private CompletableFuture<@Nullable Message<?>> request(String label, InetSocketAddress address, UdpChannel channel,
            Object payload, Map<String, ?> headers, Class<?> replyType, Duration timeout) {
        return request(channel, payload, headers, replyType, timeout, SendTarget.address(directory(), label, address));
    }

    private CompletableFuture<@Nullable Message<?>> request(UdpChannel channel, Object payload, Map<String, ?> headers,
            Class<?> replyType, Duration timeout, SendTarget target) {
        String label = target.label();
        InetSocketAddress address = Objects.requireNonNull(target.address(), "address");
        Objects.requireNonNull(replyType, "replyType");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the reply timeout must be > 0, was " + timeout);
        }
        ReliableUdpMessageMapper.Outbound outbound = template.getMessageMapper().toOutbound(payload, headers);
        UdpReplyCorrelator correlator = template.getNode().replyCorrelator();
        CompletableFuture<@Nullable Message<?>> result = new CompletableFuture<>();
        long id = correlator.register(address, (in, envelope) -> {
            try {
                template.replyExecutor().execute(() -> completeReply(result, label, in, envelope, replyType));
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        // a future the caller completes or cancels forgets its id too; the paths below forget it before
        // completing, so whoever sees the future done also sees the request gone from the correlator
        result.whenComplete((m, e) -> correlator.cancel(id));
        CompletableFuture<SendResult> sent;
        try {
            sent = template.doSend(target, channel, outbound, EnvelopeCodec.FLAG_REQUEST, id);
        } catch (RuntimeException e) {
            correlator.cancel(id);
            throw e;
        }
        sent.whenComplete((r, e) -> {
            if (e != null) {
                correlator.cancel(id);
                result.completeExceptionally(e);
            }
        });
        CompletableFuture.delayedExecutor(timeout.toNanos(), TimeUnit.NANOSECONDS).execute(() -> {
            if (!result.isDone()) {
                correlator.cancel(id);
                result.completeExceptionally(new ReliableUdpReplyTimeoutException(label, channel.name(), id, timeout));
            }
        });
        return result;
    }

    private void completeReply(CompletableFuture<@Nullable Message<?>> result, String label, InboundUdpMessage in,
            Envelope envelope, Class<?> replyType) {
        try {
            if (envelope.isError()) {
                result.completeExceptionally(RemoteListenerException.of(label, envelope));
                return;
            }
            if (envelope.contentType() == null && envelope.body().length == 0) {
                result.complete(null);   // the listener returned nothing: it handled the request
                return;
            }
            Message<?> typed = template.getMessageMapper().toTypedMessage(in, envelope, replyType.getClassLoader());
            Object payload = template.getMessageMapper().fromMessage(typed, replyType);
            result.complete(MessageBuilder.withPayload(payload).copyHeaders(typed.getHeaders()).build());
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
        }
    }

    private static UdpChannel requireReliable(UdpChannel c) {
        if (!c.mode().isReliable()) {
            throw new IllegalArgumentException("channel '" + c.name() + "' is " + c.mode() + ": request/reply needs a reliable"
                    + " channel (reliable-ordered or reliable-unordered), since a lost request or reply would only time out");
        }
        return c;
    }
}
