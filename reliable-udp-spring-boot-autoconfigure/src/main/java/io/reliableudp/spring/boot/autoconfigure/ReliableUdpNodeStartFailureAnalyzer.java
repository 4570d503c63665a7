package io.reliableudp.spring.boot.autoconfigure;

import io.reliableudp.spring.core.ReliableUdpNodeStartException;
import java.net.BindException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a node that could not bind: which address, and how to pick another one. */
final class ReliableUdpNodeStartFailureAnalyzer extends AbstractFailureAnalyzer<ReliableUdpNodeStartException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ReliableUdpNodeStartException cause) {
        boolean inUse = findCause(cause, BindException.class) != null;
        String description = "The reliable-udp node could not bind " + cause.getBindAddress() + ": "
                + (inUse ? "the UDP port is in use or the address is not on this host." : cause.getCause().getMessage());
        String action = inUse
                ? "Stop the process using UDP port " + cause.getBindAddress().getPort() + ", or set reliable-udp.port to another port "
                        + "(0 picks a free one) or reliable-udp.bind-address to an address of this host."
                : "Check reliable-udp.bind-address and reliable-udp.port, and the cause above.";
        return new FailureAnalysis(description, action, cause);
    }
}
