package io.reliableudp.spring.listener;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.util.backoff.BackOff;

/** What a listener container is built from: filters, options and the handler. */
public interface UdpListenerEndpoint {

    /** The endpoint id (unique in the registry). */
    String getId();

    /** Channel names or indexes to listen on; empty for every channel. */
    List<String> getChannels();

    /** Peer names or {@code host:port} addresses to accept messages from; empty for every peer. */
    List<String> getPeers();

    /** Whether the container starts with the registry, or null for the factory's default. */
    @Nullable Boolean getAutoStartup();

    /** The error handler, or null for the factory's default (logging). */
    @Nullable UdpListenerErrorHandler getErrorHandler();

    /** The channel replies go out on (name or index), or null for the channel the message came on. */
    @Nullable String getReplyChannel();

    /** How a failed call is retried before the error handler, or null for the factory's default. */
    default @Nullable BackOff getBackOff() {
        return null;
    }

    /** Concurrent messages per (peer, channel) on unordered channels, or null for the factory's default. */
    default @Nullable Integer getConcurrency() {
        return null;
    }

    /**
     * Creates the handler.
     *
     * @param factory resolves method arguments (for method endpoints)
     * @return the handler
     */
    UdpMessageHandler createHandler(MessageHandlerMethodFactory factory);
}
