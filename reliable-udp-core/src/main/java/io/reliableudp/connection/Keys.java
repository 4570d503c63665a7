package io.reliableudp.connection;

import io.reliableudp.internal.WireCodec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HKDF-SHA256 (RFC 5869, with the JDK's HmacSHA256) of the per-connection keys from the pre-shared
 * key and both handshake nonces. Three 32-byte outputs: client-to-server key, server-to-client key,
 * and the key of the client's proof in the response. Holds keys: never logged, no toString content.
 */
final class Keys {

    private static final byte[] C2S = "reliable-udp v2 client->server".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] S2C = "reliable-udp v2 server->client".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PROOF = "reliable-udp v2 response proof".getBytes(StandardCharsets.US_ASCII);

    private final byte[] clientToServer;
    private final byte[] serverToClient;
    private final byte[] proof;

    private Keys(byte[] c2s, byte[] s2c, byte[] proof) {
        this.clientToServer = c2s;
        this.serverToClient = s2c;
        this.proof = proof;
    }

    /** Derives the keys of one connection. */
    public static Keys derive(byte[] preSharedKey, long protocolId, byte[] clientNonce, byte[] serverNonce) {
        byte[] salt = new byte[clientNonce.length + serverNonce.length];
        System.arraycopy(clientNonce, 0, salt, 0, clientNonce.length);
        System.arraycopy(serverNonce, 0, salt, clientNonce.length, serverNonce.length);
        byte[] prk = hmac(salt, preSharedKey);
        return new Keys(expand(prk, C2S, protocolId), expand(prk, S2C, protocolId), expand(prk, PROOF, protocolId));
    }

    private static byte[] expand(byte[] prk, byte[] label, long protocolId) {
        byte[] info = new byte[label.length + 8 + 1];
        System.arraycopy(label, 0, info, 0, label.length);
        WireCodec.putLongBE(info, label.length, protocolId);
        info[info.length - 1] = 1; // T(1) = HMAC(PRK, info | 0x01): one block is 32 bytes
        return hmac(prk, info);
    }

    static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks HmacSHA256", e);
        }
    }

    /** The key sealing client-to-server frames (a copy). */
    public byte[] clientToServer() {
        return clientToServer.clone();
    }

    /** The key sealing server-to-client frames (a copy). */
    public byte[] serverToClient() {
        return serverToClient.clone();
    }

    /** The first 16 bytes of HMAC-SHA256(proof key, data): the client's proof that it holds the key. */
    public byte[] proof(byte[] data, int off, int len) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(proof, "HmacSHA256"));
            mac.update(data, off, len);
            byte[] full = mac.doFinal();
            byte[] out = new byte[Protocol.TAG_BYTES];
            System.arraycopy(full, 0, out, 0, out.length);
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks HmacSHA256", e);
        }
    }

    /** Constant-time comparison of a received proof. */
    public boolean verifyProof(byte[] data, int off, int len, byte[] received, int receivedOff) {
        byte[] expected = proof(data, off, len);
        byte[] got = new byte[Protocol.TAG_BYTES];
        System.arraycopy(received, receivedOff, got, 0, got.length);
        return MessageDigest.isEqual(expected, got);
    }

    @Override
    public String toString() {
        return "Keys[redacted]";
    }
}
