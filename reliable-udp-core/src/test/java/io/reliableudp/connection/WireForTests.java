package io.reliableudp.connection;

/**
 * The few wire constants and encodings that tests of other packages need to forge or recognise
 * datagrams (the connection layer's own {@code Protocol} and {@code Handshake} are package-private).
 * Test code only.
 */
public final class WireForTests {

    public static final byte REQUEST = Protocol.REQUEST;
    public static final byte RESPONSE = Protocol.RESPONSE;
    public static final byte KEEPALIVE = Protocol.KEEPALIVE;
    public static final byte PAYLOAD = Protocol.PAYLOAD;
    public static final int VERSION = Protocol.VERSION;
    /** Header of a connected frame (type, salt, sequence), in both modes. */
    public static final int FRAME_HEADER = Protocol.FRAME_HEADER;
    public static final int REQUEST_SIZE = Protocol.REQUEST_SIZE;
    public static final int RESPONSE_SIZE = Protocol.RESPONSE_SIZE;

    private WireForTests() {
    }

    /** A well-formed plain-mode connection request with an all-zero client nonce. */
    public static byte[] request(long protocolId) {
        byte[] out = new byte[Protocol.REQUEST_SIZE];
        Handshake.encodeRequest(protocolId, 0, new byte[Protocol.NONCE_BYTES], out);
        return out;
    }
}
