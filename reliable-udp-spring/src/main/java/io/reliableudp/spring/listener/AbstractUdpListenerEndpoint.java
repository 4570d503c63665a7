package io.reliableudp.spring.listener;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.util.backoff.BackOff;

/** Holds the common settings of an endpoint. */
public abstract class AbstractUdpListenerEndpoint implements UdpListenerEndpoint {

    private String id = "";
    private List<String> channels = List.of();
    private List<String> peers = List.of();
    private @Nullable Boolean autoStartup;
    private @Nullable UdpListenerErrorHandler errorHandler;
    private @Nullable String replyChannel;
    private @Nullable BackOff backOff;
    private @Nullable Integer concurrency;

    @Override
    public @Nullable BackOff getBackOff() {
        return backOff;
    }

    /**
     * Sets how a failed call is retried before the error handler.
     *
     * @param backOff the back off, or null for the factory's default
     */
    public void setBackOff(@Nullable BackOff backOff) {
        this.backOff = backOff;
    }

    @Override
    public @Nullable Integer getConcurrency() {
        return concurrency;
    }

    /**
     * Sets the concurrency of unordered channels.
     *
     * @param concurrency at least 1, or null for the factory's default
     */
    public void setConcurrency(@Nullable Integer concurrency) {
        this.concurrency = concurrency;
    }

    @Override
    public String getId() {
        return id;
    }

    /**
     * Sets the id.
     *
     * @param id the id
     */
    public void setId(String id) {
        this.id = id;
    }

    @Override
    public List<String> getChannels() {
        return channels;
    }

    /**
     * Sets the channels to listen on.
     *
     * @param channels channel names or indexes; empty for all
     */
    public void setChannels(List<String> channels) {
        this.channels = List.copyOf(channels);
    }

    @Override
    public List<String> getPeers() {
        return peers;
    }

    /**
     * Sets the peer filter.
     *
     * @param peers peer names or {@code host:port}; empty for all
     */
    public void setPeers(List<String> peers) {
        this.peers = List.copyOf(peers);
    }

    @Override
    public @Nullable Boolean getAutoStartup() {
        return autoStartup;
    }

    /**
     * Sets whether the container starts with the registry.
     *
     * @param autoStartup the flag, or null for the factory's default
     */
    public void setAutoStartup(@Nullable Boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    @Override
    public @Nullable UdpListenerErrorHandler getErrorHandler() {
        return errorHandler;
    }

    /**
     * Sets the error handler.
     *
     * @param errorHandler the handler, or null for the default
     */
    public void setErrorHandler(@Nullable UdpListenerErrorHandler errorHandler) {
        this.errorHandler = errorHandler;
    }

    @Override
    public @Nullable String getReplyChannel() {
        return replyChannel;
    }

    /**
     * Sets the reply channel.
     *
     * @param replyChannel a channel name or index, or null for the inbound channel
     */
    public void setReplyChannel(@Nullable String replyChannel) {
        this.replyChannel = replyChannel;
    }
}
