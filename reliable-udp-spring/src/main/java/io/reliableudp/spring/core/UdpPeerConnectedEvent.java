package io.reliableudp.spring.core;

import io.reliableudp.transport.Peer;
import java.io.Serial;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEvent;

/** Published (off the receive thread) when a connection completes its handshake, in either direction. */
public class UdpPeerConnectedEvent extends ApplicationEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    private final transient Peer peer;
    private final @Nullable String peerName;

    /**
     * Creates the event.
     *
     * @param source the managed node
     * @param peer the peer
     * @param peerName its configured name, or null
     */
    public UdpPeerConnectedEvent(Object source, Peer peer, @Nullable String peerName) {
        super(source);
        this.peer = peer;
        this.peerName = peerName;
    }

    /** The peer. */
    public Peer getPeer() {
        return peer;
    }

    /** The peer's configured name, or null. */
    public @Nullable String getPeerName() {
        return peerName;
    }
}
