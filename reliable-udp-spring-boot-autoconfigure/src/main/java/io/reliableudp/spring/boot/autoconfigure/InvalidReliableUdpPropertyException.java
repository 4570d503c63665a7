package io.reliableudp.spring.boot.autoconfigure;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * A {@code reliable-udp.*} property with a value the node cannot use. Turned into a startup failure
 * report naming the property and the fix by {@link ReliableUdpFailureAnalyzer}.
 */
public class InvalidReliableUdpPropertyException extends IllegalArgumentException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String property;
    private final @Nullable String value;
    private final String action;

    /**
     * Creates the exception.
     *
     * @param property the full property name
     * @param value the offending value as text (already redacted for secrets), or null when absent
     * @param reason what is wrong
     * @param action how to fix it
     */
    public InvalidReliableUdpPropertyException(String property, @Nullable String value, String reason, String action) {
        super("invalid value for " + property + (value == null ? "" : " ('" + value + "')") + ": " + reason);
        this.property = property;
        this.value = value;
        this.action = action;
    }

    /** The full property name. */
    public String getProperty() {
        return property;
    }

    /** The offending value (redacted for secrets), or null when the property is missing. */
    public @Nullable String getValue() {
        return value;
    }

    /** How to fix it. */
    public String getAction() {
        return action;
    }
}
