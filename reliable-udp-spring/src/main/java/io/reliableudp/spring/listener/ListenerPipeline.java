package io.reliableudp.spring.listener;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.reliableudp.spring.core.InboundUdpMessage;
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
 * {@link ReliableUdpMessageMapper} (an untrusted or unconvertible type is counted and refused), runs the
 * {@link ListenerInvoker} inside a {@code reliable.udp.process} observation, and has the
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
        ReliableUdpReceiverContext context = new ReliableUdpReceiverContext(envelope.headers(), in, id);
        Observation observation = ReliableUdpObservation.LISTENER_OBSERVATION.observation(observationConvention,
                DefaultReliableUdpListenerObservationConvention.INSTANCE, () -> context, observationRegistry);
        processed.increment();
        observation.observe(() -> {
            Object reply;
            Exception failure = null;
            try {
                reply = invoker.invoke(message);
            } catch (Exception e) {
                errors.increment();
                observation.error(e);
                failure = e;
                reply = invoker.handleError(message, e);
            }
            replier.settle(in, envelope.isRequest(), envelope.isAckRequested(), envelope.correlationId(), reply, failure);
        });
    }
}
