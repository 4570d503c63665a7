package io.reliableudp.transport;

import java.util.Objects;

/**
 * An entry of a node's allow-list ({@link NodeConfig#allowedPeers()}): a peer's public key and the
 * name the application knows it by (a service name, say). Two entries may share a name: that is how a
 * key is rotated (the old and the new key accepted at once, then the old one removed). Once a
 * handshake proves that the peer holds the private key of an entry, {@link Peer#identity()} returns
 * that entry.
 *
 * @param name what the application calls the peer (not blank; not secret)
 * @param key the peer's public key
 */
public record PeerIdentity(String name, PeerKey key) {

    /** An entry with a non-blank name. */
    public PeerIdentity {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(key, "key");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a peer identity needs a name");
        }
    }
}
