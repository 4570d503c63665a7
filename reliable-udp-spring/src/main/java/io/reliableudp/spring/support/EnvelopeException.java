package io.reliableudp.spring.support;

import java.io.Serial;

/** A payload whose envelope could not be decoded (or a message whose envelope could not be encoded). */
public class EnvelopeException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param message what is wrong
     */
    public EnvelopeException(String message) {
        super(message);
    }
}
