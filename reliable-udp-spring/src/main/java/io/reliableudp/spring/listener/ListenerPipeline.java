package io.reliableudp.spring.listener;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.reliableudp.spring.support.InboundUdpMessage;
import io.reliableudp.spring.core.RemoteListenerException;
import io.reliableudp.spring.observation.DefaultReliableUdpListenerObservationConvention;
import io.reliableudp.spring.observation.ReliableUdpListenerObservationConvention;
import io.reliableudp.spring.observation.ReliableUdpObservation;
import io.reliableudp.spring.observation.ReliableUdpReceiverContext;
import io.reliableudp.spring.support.Envelope;
import io.reliableudp.spring.support.EnvelopeCodec;
import io.reliableudp.spring.support.EnvelopeException;
import io.reliableudp.spring.support.ReliableUdpMessageMapper;
import io.reliableudp.spring.support.UdpTypeNotTrustedException;
import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.util.ClassUtils;

/**
 * What one listener container does with one message on the listener's thread, in its serial turn:
 * decodes the envelope (a malformed one is counted, logged and dropped), builds the message with the
 * {@link ReliableUdpMessageMapper} (an untrusted or unconvertible type is counted and refused), asks the
 * {@link UdpMessageFilter} and the {@link UdpMessageInterceptor} whether it goes on (a message dropped or
 * vetoed is counted and settled as processed), runs the {@link ListenerInvoker} inside a
 * {@code reliable.udp.process} observation between the interceptor's calls, and has the
 * {@link ListenerReplier} answer the sender. Logs under the container's name.
 */
final class ListenerPipeline {

    private static final Log logger = LogFactory.getLog(UdpMessageListenerContainer.class);

    private final String id;
    private final ListenerInvoker invoker;
    private final ListenerReplier replier;
    private final @Nullable ClassLoader classLoader = ClassUtils.getDefaultClassLoader();
    private final LongAdder processed = new LongAdder();
    private final LongAdder errors = new LongAdder();
    private final LongAdder malformed = new LongAdder();
    private final LongAdder rejectedTypes = new LongAdder();
    private final LongAdder filtered = new LongAdder();
    private final LongAdder vetoed = new LongAdder();
    private volatile @Nullable UdpMessageFilter filter;
    private volatile @Nullable UdpMessageInterceptor interceptor;
    private volatile ReliableUdpMessageMapper messageMapper;
    private volatile ObservationRegistry observationRegistry = ObservationRegistry.NOOP;
    private volatile @Nullable ReliableUdpListenerObservationConvention observationConvention;

    ListenerPipeline(String id, ListenerInvoker invoker, ListenerReplier replier, ReliableUdpMessageMapper messageMapper) {
        this.id = id;
        this.invoker = invoker;
        this.replier = replier;
        this.messageMapper = messageMapper;
    }

    void setMessageMapper(ReliableUdpMessageMapper messageMapper) {
        this.messageMapper = Objects.requireNonNull(messageMapper, "messageMapper");
    }

    ReliableUdpMessageMapper messageMapper() {
        return messageMapper;
    }

    void setObservationRegistry(ObservationRegistry registry) {
        this.observationRegistry = Objects.requireNonNull(registry, "registry");
    }

    void setObservationConvention(@Nullable ReliableUdpListenerObservationConvention convention) {
        this.observationConvention = convention;
    }

    void setFilter(@Nullable UdpMessageFilter filter) {
        this.filter = filter;
    }

    @Nullable UdpMessageFilter filter() {
        return filter;
    }

    void setInterceptor(@Nullable UdpMessageInterceptor interceptor) {
        this.interceptor = interceptor;
    }

    @Nullable UdpMessageInterceptor interceptor() {
        return interceptor;
    }

    long filteredCount() {
        return filtered.sum();
    }

    long vetoedCount() {
        return vetoed.sum();
    }

    long processedCount() {
        return processed.sum();
    }

    long errorCount() {
        return errors.sum();
    }

    long malformedCount() {
        return malformed.sum();
    }

    long rejectedTypeCount() {
        return rejectedTypes.sum();
    }

    void process(InboundUdpMessage in) {
        Envelope envelope;
        try {
            envelope = EnvelopeCodec.decode(in.payload());
        } catch (EnvelopeException e) {
            malformed.increment();
            logger.warn("listener '" + id + "' dropped a malformed message from " + in.address() + " on channel '"
                    + in.channel().name() + "': " + e.getMessage());
            return;
        }
        Message<?> message;
        try {
            message = messageMapper.toTypedMessage(in, envelope, classLoader);
        } catch (UdpTypeNotTrustedException | IllegalStateException | MessageConversionException e) {
            rejectedTypes.increment();
            logger.warn("listener '" + id + "' refused a message from " + in.address() + " on channel '"
                    + in.channel().name() + "': " + e.getMessage());
            if (envelope.isRequest() || envelope.isAckRequested()) {
                replier.errorReply(in, envelope.correlationId(), RemoteListenerException.Category.NOT_ACCEPTED, e);
            }
            return;
        }
        UdpMessageFilter f = filter;
        UdpMessageInterceptor i = interceptor;
        boolean intercepted = false;
        try {
            Message<?> admitted;
            try {
                if (f != null && !f.accept(message)) {
                    filtered.increment();
                    admitted = null;
                } else if (i != null) {
                    intercepted = true;
                    admitted = i.intercept(message);
                    if (admitted == null) {
                        vetoed.increment();
                    }
                } else {
                    admitted = message;
                }
            } catch (RuntimeException e) {
                // the filter or the interceptor threw: a failure of this message, which the listener never sees
                errors.increment();
                Object reply = invoker.handleError(message, e);
                replier.settle(in, envelope.isRequest(), envelope.isAckRequested(), envelope.correlationId(), reply, e);
                return;
            }
            if (admitted == null) {
                // dropped or vetoed: settled as processed, as a listener that returned nothing
                replier.settle(in, envelope.isRequest(), envelope.isAckRequested(), envelope.correlationId(), null, null);
                return;
            }
            handle(in, envelope, admitted, i);
        } finally {
            if (intercepted) {
                afterRecord(Objects.requireNonNull(i), message);
            }
        }
    }

    private void handle(InboundUdpMessage in, Envelope envelope, Message<?> message, @Nullable UdpMessageInterceptor i) {
        ReliableUdpReceiverContext context = new ReliableUdpReceiverContext(envelope.headers(), in, id);
        Observation observation = ReliableUdpObservation.LISTENER_OBSERVATION.observation(observationConvention,
                DefaultReliableUdpListenerObservationConvention.INSTANCE, () -> context, observationRegistry);
        processed.increment();
        observation.observe(() -> {
            Object reply;
            Exception failure = null;
            try {
                reply = invoker.invoke(message);
                if (i != null) {
                    notifySuccess(i, message, reply);
                }
            } catch (Exception e) {
                errors.increment();
                observation.error(e);
                failure = e;
                if (i != null) {
                    notifyFailure(i, message, e);
                }
                reply = invoker.handleError(message, e);
            }
            replier.settle(in, envelope.isRequest(), envelope.isAckRequested(), envelope.correlationId(), reply, failure);
        });
    }

    private void notifySuccess(UdpMessageInterceptor i, Message<?> message, @Nullable Object reply) {
        try {
            i.success(message, reply);
        } catch (RuntimeException e) {
            logger.error("the interceptor of listener '" + id + "' failed after the listener returned", e);
        }
    }

    private void notifyFailure(UdpMessageInterceptor i, Message<?> message, Exception failure) {
        try {
            i.failure(message, failure);
        } catch (RuntimeException e) {
            logger.error("the interceptor of listener '" + id + "' failed after the listener threw", e);
        }
    }

    private void afterRecord(UdpMessageInterceptor i, Message<?> message) {
        try {
            i.afterRecord(message);
        } catch (RuntimeException e) {
            logger.error("the interceptor of listener '" + id + "' failed after a message", e);
        }
    }
}
