package io.reliableudp;

import java.io.Serial;
import org.jspecify.annotations.Nullable;

/**
 * A configuration value the core rejects, naming the field it was given in, so that a caller (the
 * Spring module's property mapping, a test) can point at its own name for it without reading the
 * message. Thrown when {@code ReliableConfig}, {@code MessageConfig}, {@code ChannelConfig},
 * {@code LinkConditionerConfig} or {@code NodeConfig} is built; the message is the human-readable
 * sentence (for example {@code "maxConnections must be within 1..65536, was 0"}).
 *
 * <p>It lives in the root package, below every layer, so each layer's configuration can throw it.
 * Still an {@link IllegalArgumentException}, so code catching that keeps working.
 */
public final class InvalidConfigurationException extends IllegalArgumentException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String field;
    private final @Nullable String value;
    private final String rule;

    /**
     * A value that breaks a rule; the message is {@code field + " " + rule + ", was " + value}.
     *
     * @param field the field's name in the configuration class (builder method or record component)
     * @param value the rejected value (never a secret: for a key, say its length), or null when it was null
     * @param rule what the value must be, without the field name (e.g. {@code "must be within 1..65536"})
     */
    public InvalidConfigurationException(String field, @Nullable Object value, String rule) {
        this(field, value, rule, field + " " + rule + ", was " + value);
    }

    /**
     * A value that breaks a rule, with a message of its own (for rules over two fields, or a missing value).
     *
     * @param field the field's name in the configuration class
     * @param value the rejected value (never a secret), or null when it was null or absent
     * @param rule what the value must be, without the field name
     * @param message the whole sentence
     */
    public InvalidConfigurationException(String field, @Nullable Object value, String rule, String message) {
        super(message);
        this.field = field;
        this.value = value == null ? null : String.valueOf(value);
        this.rule = rule;
    }

    /**
     * The name of the rejected field as the configuration class spells it (e.g. {@code "maxConnections"},
     * {@code "channels"}, {@code "lossProbability"}).
     *
     * @return the field name
     */
    public String field() {
        return field;
    }

    /**
     * The rejected value as text.
     *
     * @return the value, or null when the value was null (missing)
     */
    public @Nullable String value() {
        return value;
    }

    /**
     * What the value must be, without the field name, e.g. {@code "must be within 1..65536"}.
     *
     * @return the rule
     */
    public String rule() {
        return rule;
    }
}
