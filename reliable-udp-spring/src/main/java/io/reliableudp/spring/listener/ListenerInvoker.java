package io.reliableudp.spring.listener;

import java.util.Objects;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.Message;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import io.reliableudp.spring.support.ReliableUdpHeaders;

/**
 * Calls one listener container's handler, and what happens when it throws: retried as the back off
 * says (sleeping on the listener's thread, so the later messages of that serial queue wait), until the
 * back off stops or the container stops; then the error handler (the recoverer) gets the failure, or it
 * is logged when there is none. The error handler's non-null return value is the reply. Logs under the
 * container's name.
 */
final class ListenerInvoker {

    private static final Log logger = LogFactory.getLog(UdpMessageListenerContainer.class);

    private final String id;
    private final @Nullable UdpListenerErrorHandler errorHandler;
    /** Whether the container still runs: a stopping container retries no more. */
    private final BooleanSupplier running;
    private final LongAdder retries = new LongAdder();
    private volatile UdpMessageHandler handler;
    private volatile @Nullable BackOff backOff;

    ListenerInvoker(String id, UdpMessageHandler handler, @Nullable UdpListenerErrorHandler errorHandler, BooleanSupplier running) {
        this.id = id;
        this.handler = Objects.requireNonNull(handler, "handler");
        this.errorHandler = errorHandler;
        this.running = running;
    }

    void setHandler(UdpMessageHandler handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    void setBackOff(@Nullable BackOff backOff) {
        this.backOff = backOff;
    }

    @Nullable BackOff backOff() {
        return backOff;
    }

    long retryCount() {
        return retries.sum();
    }

    /**
     * Runs the handler; a failure is retried as the back off says, until it stops or the container stops.
     *
     * @return the handler's return value
     * @throws Exception what the last attempt threw
     */
    @Nullable Object invoke(Message<?> message) throws Exception {
        BackOffExecution execution = null;
        while (true) {
            try {
                return handler.handle(message);
            } catch (Exception e) {
                BackOff b = backOff;
                if (b == null) {
                    throw e;
                }
                if (execution == null) {
                    execution = b.start();
                }
                long wait = execution.nextBackOff();
                if (wait == BackOffExecution.STOP || !running.getAsBoolean()) {
                    throw e;
                }
                retries.increment();
                if (logger.isDebugEnabled()) {
                    logger.debug("listener '" + id + "' failed (" + e + "); retrying in " + wait + " ms");
                }
                try {
                    Thread.sleep(Math.max(0, wait));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /**
     * Hands a failure that retries did not cure to the error handler (or logs it).
     *
     * @return the error handler's reply, or null
     */
    @Nullable Object handleError(Message<?> message, Exception e) {
        ListenerExecutionFailedException failure = new ListenerExecutionFailedException(id, message, e);
        UdpListenerErrorHandler h = errorHandler;
        if (h == null) {
            logger.error("listener '" + id + "' failed on a message from " + message.getHeaders().get(ReliableUdpHeaders.PEER_ADDRESS), e);
            return null;
        }
        try {
            return h.handleError(message, failure);
        } catch (Exception ex) {
            logger.error("the error handler of listener '" + id + "' failed", ex);
            return null;
        }
    }
}
