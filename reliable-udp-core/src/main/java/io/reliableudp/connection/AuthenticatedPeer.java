package io.reliableudp.connection;

import java.util.Base64;

/**
 * The peer a handshake authenticated by its static key: the allow-list entry's name and the key.
 * The connection layer's contract with the transport; not user API.
 *
 * @param name the allow-list entry's name
 * @param publicKey the peer's 32-byte static public key
 */
public record AuthenticatedPeer(String name, byte[] publicKey) {

    /** A copy of the key. */
    @Override
    public byte[] publicKey() {
        return publicKey.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AuthenticatedPeer p && p.name.equals(name) && java.util.Arrays.equals(p.publicKey, publicKey);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + java.util.Arrays.hashCode(publicKey);
    }

    @Override
    public String toString() {
        return "AuthenticatedPeer[" + name + ", " + Base64.getEncoder().encodeToString(publicKey) + "]";
    }
}
