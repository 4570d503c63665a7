package io.reliableudp.spring.core;

import io.reliableudp.DisconnectReason;
import io.reliableudp.transport.Peer;
import java.io.Serial;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationEvent;

/** Published (off the receive thread) when a connection ended; its pending sends have failed already. */
public class UdpPeerDisconnectedEvent extends ApplicationEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    private final transient Peer peer;
    private final @Nullable String peerName;
    private final DisconnectReason reason;

    /**
     * Creates the event.
     *
     * @param source the managed node
     * @param peer the peer
     * @param peerName its configured name, or null
     * @param reason why the connection ended
     */
    public UdpPeerDisconnectedEvent(Object source, Peer peer, @Nullable String peerName, DisconnectReason reason) {
        super(source);
        this.peer = peer;
        this.peerName = peerName;
        this.reason = reason;
    }

    /** The peer. */
    public Peer getPeer() {
        return peer;
    }

    /** The peer's configured name, or null. */
    public @Nullable String getPeerName() {
        return peerName;
    }

    /** Why the connection ended. */
    public DisconnectReason getReason() {
        return reason;
    }
}
