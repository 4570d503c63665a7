package io.reliableudp.spring.boot.autoconfigure;

import io.reliableudp.transport.NodeIdentity;
import io.reliableudp.transport.PeerIdentity;
import io.reliableudp.transport.PeerKey;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.Resource;

/**
 * Reads the node's identity and its allow-list from {@code reliable-udp.security.*}: keys inline or
 * from resources (a file, a Kubernetes secret mount, a classpath entry). A resource may hold one key
 * per line (Base64 of the 32 raw bytes; blank lines and lines starting with {@code #} are skipped) or
 * PEM blocks. Errors name the property and never echo key material.
 *
 * @param identity the node's key pair, or null when none is configured
 * @param allowedPeers every allowed key with its name, in configuration order
 */
record SecurityKeys(@Nullable NodeIdentity identity, List<PeerIdentity> allowedPeers) {

    private static final String P = "reliable-udp.security.";

    /**
     * Reads every configured key (resources are read now, once).
     *
     * @param security the properties
     * @return the keys
     * @throws InvalidReliableUdpPropertyException naming the property of a key that cannot be read or parsed
     */
    static SecurityKeys load(ReliableUdpProperties.Security security) {
        return new SecurityKeys(identity(security.identity()), allowedPeers(security.allowedPeers()));
    }

    /** Whether any key is read from a resource, so that reading again may find a rotated one. */
    static boolean hasLocations(ReliableUdpProperties.Security security) {
        return security.identity().privateKeyLocation() != null
                || security.allowedPeers().values().stream().anyMatch(p -> !p.publicKeyLocations().isEmpty());
    }

    private static @Nullable NodeIdentity identity(ReliableUdpProperties.Identity identity) {
        String inline = identity.privateKey();
        Resource location = identity.privateKeyLocation();
        boolean hasInline = inline != null && !inline.isBlank();
        if (hasInline && location != null) {
            throw new InvalidReliableUdpPropertyException(P + "identity.private-key", "[redacted]",
                    "both private-key and private-key-location are set", "set only one of them");
        }
        if (!hasInline && location == null) {
            return null;
        }
        String property = hasInline ? P + "identity.private-key" : P + "identity.private-key-location";
        String text = hasInline ? inline : read(location, property);
        try {
            return NodeIdentity.fromBase64(text.strip());
        } catch (IllegalArgumentException e) {
            throw new InvalidReliableUdpPropertyException(property, hasInline ? "[redacted]" : location.getDescription(),
                    "not an X25519 private key: " + e.getMessage(),
                    "generate one with: openssl genpkey -algorithm X25519 (PEM), or NodeIdentity.generate().privateKeyBase64()");
        }
    }

    private static List<PeerIdentity> allowedPeers(Map<String, ReliableUdpProperties.AllowedPeer> peers) {
        List<PeerIdentity> allowed = new ArrayList<>();
        peers.forEach((name, peer) -> {
            String prefix = P + "allowed-peers." + name + ".";
            if (peer.publicKeys().isEmpty() && peer.publicKeyLocations().isEmpty()) {
                throw new InvalidReliableUdpPropertyException(prefix + "public-keys", null, "the peer '" + name + "' lists no key",
                        "set public-keys or public-key-locations");
            }
            List<String> keys = peer.publicKeys();
            for (int i = 0; i < keys.size(); i++) {
                allowed.add(new PeerIdentity(name, key(keys.get(i), prefix + "public-keys[" + i + "]", keys.get(i))));
            }
            List<Resource> locations = peer.publicKeyLocations();
            for (int i = 0; i < locations.size(); i++) {
                String property = prefix + "public-key-locations[" + i + "]";
                Resource location = locations.get(i);
                List<String> found = split(read(location, property));
                if (found.isEmpty()) {
                    throw new InvalidReliableUdpPropertyException(property, location.getDescription(), "the resource holds no key",
                            "put one Base64 key per line, or PEM PUBLIC KEY blocks, in it");
                }
                for (String text : found) {
                    allowed.add(new PeerIdentity(name, key(text, property, location.getDescription())));
                }
            }
        });
        return List.copyOf(allowed);
    }

    private static PeerKey key(String text, String property, String shown) {
        try {
            return PeerKey.fromBase64(text);
        } catch (IllegalArgumentException e) {
            throw new InvalidReliableUdpPropertyException(property, shown.length() > 80 ? shown.substring(0, 80) + "..." : shown,
                    "not an X25519 public key: " + e.getMessage(),
                    "use the peer's NodeIdentity.publicKey().toBase64(), or: openssl pkey -in peer.key -pubout");
        }
    }

    /** The keys in a resource's text: each PEM block, and each other line that is not blank nor a comment. */
    static List<String> split(String text) {
        List<String> keys = new ArrayList<>();
        StringBuilder block = null;
        for (String line : text.split("\\R")) {
            String t = line.strip();
            if (block != null) {
                block.append(t).append('\n');
                if (t.startsWith("-----END")) {
                    keys.add(block.toString());
                    block = null;
                }
            } else if (t.startsWith("-----BEGIN")) {
                block = new StringBuilder(t).append('\n');
            } else if (!t.isEmpty() && !t.startsWith("#")) {
                keys.add(t);
            }
        }
        if (block != null) {
            keys.add(block.toString()); // an unterminated block: the parser says what is wrong with it
        }
        return keys;
    }

    private static String read(Resource location, String property) {
        try (InputStream in = location.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new InvalidReliableUdpPropertyException(property, location.getDescription(), "cannot be read: " + e.getMessage(),
                    "point it at a readable file, e.g. file:/etc/reliable-udp/node.key");
        }
    }

    @Override
    public String toString() {
        return "SecurityKeys[identity=" + identity + ", allowedPeers=" + allowedPeers + "]";
    }
}
