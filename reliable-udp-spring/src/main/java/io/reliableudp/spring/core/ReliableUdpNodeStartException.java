package io.reliableudp.spring.core;

import java.io.Serial;
import java.net.InetSocketAddress;

/** The node could not be started (typically: its UDP port is taken). */
public class ReliableUdpNodeStartException extends IllegalStateException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final InetSocketAddress bindAddress;

    /**
     * Creates the exception.
     *
     * @param bindAddress the address the node tried to bind
     * @param cause the failure
     */
    public ReliableUdpNodeStartException(InetSocketAddress bindAddress, Throwable cause) {
        super("could not start the reliable-udp node on " + bindAddress + ": " + cause.getMessage(), cause);
        this.bindAddress = bindAddress;
    }

    /** The address the node tried to bind. */
    public InetSocketAddress getBindAddress() {
        return bindAddress;
    }
}
