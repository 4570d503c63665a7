package io.reliableudp.spring.support;

import java.io.Serial;

/** A received type id that names no mapped type and no class of a trusted package: the message is refused. */
public class UdpTypeNotTrustedException extends RuntimeException {

    @Serial
    private static final long serialVersionUID = 1L;

    private final String typeId;

    /**
     * Creates the exception.
     *
     * @param typeId the id as received (shown, never loaded when untrusted)
     * @param reason why it is refused
     */
    public UdpTypeNotTrustedException(String typeId, String reason) {
        super("type id '" + typeId + "' refused: " + reason + " (reliable-udp.types.mappings / trusted-packages)");
        this.typeId = typeId;
    }

    /** The type id as received. */
    public String getTypeId() {
        return typeId;
    }
}
