package io.reliableudp.spring.core;

import io.reliableudp.transport.Peer;
import java.io.Serial;
import java.net.InetSocketAddress;
import org.springframework.context.ApplicationEvent;

/**
 * Published (off the receive thread) when a connection moved to a new address of its peer (a NAT that
 * rebound, a roaming client) after the peer answered a path challenge there (encrypted modes).
 */
public class UdpPeerMigratedEvent extends ApplicationEvent {

    @Serial
    private static final long serialVersionUID = 1L;

    private final transient Peer peer;
    private final InetSocketAddress from;
    private final InetSocketAddress to;

    /**
     * Creates the event.
     *
     * @param source the managed node
     * @param peer the peer
     * @param from the address it had
     * @param to the address it has now
     */
    public UdpPeerMigratedEvent(Object source, Peer peer, InetSocketAddress from, InetSocketAddress to) {
        super(source);
        this.peer = peer;
        this.from = from;
        this.to = to;
    }

    /** The peer. */
    public Peer getPeer() {
        return peer;
    }

    /** The address the connection had. */
    public InetSocketAddress getFrom() {
        return from;
    }

    /** The address the connection has now. */
    public InetSocketAddress getTo() {
        return to;
    }
}
