package io.reliableudp.spring.boot.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a bad {@code reliable-udp.*} value: the property, the value, what is wrong and the fix. */
final class ReliableUdpFailureAnalyzer extends AbstractFailureAnalyzer<InvalidReliableUdpPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidReliableUdpPropertyException cause) {
        String description = "The reliable-udp node could not be configured:\n\n"
                + "    Property: " + cause.getProperty() + "\n"
                + "    Value:    " + (cause.getValue() == null ? "(not set)" : "\"" + cause.getValue() + "\"") + "\n"
                + "    Reason:   " + cause.getMessage();
        return new FailureAnalysis(description, "Update " + cause.getProperty() + ": " + cause.getAction(), cause);
    }
}
