package io.reliableudp.spring.boot.metrics;

import io.reliableudp.spring.core.UdpAddresses;
import io.reliableudp.spring.observation.ReliableUdpObservation;
import java.net.InetSocketAddress;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The peers named in configuration ({@code reliable-udp.peers.<name>.address=host:port}), used to
 * give peers a bounded, human name in metric tags, health details and the actuator endpoint. A peer
 * whose address is not configured is called {@value #OTHER}.
 *
 * <p>Immutable and thread-safe. Addresses are resolved once, when bound.
 */
public final class ConfiguredPeers {

    /** The name given to every peer whose address is not configured. */
    public static final String OTHER = ReliableUdpObservation.UNKNOWN_PEER;

    /** The configuration prefix of the named peers. */
    public static final String PREFIX = "reliable-udp.peers";

    private static final ConfiguredPeers NONE = new ConfiguredPeers(Map.of());

    private final Map<String, InetSocketAddress> byName;
    private final Map<InetSocketAddress, String> byAddress;

    /**
     * Names the given addresses.
     *
     * @param byName peer name to address; a name must not be {@value #OTHER} nor blank, and two names must not share an address
     * @throws IllegalArgumentException naming the offending entry
     */
    public ConfiguredPeers(Map<String, InetSocketAddress> byName) {
        Map<String, InetSocketAddress> names = new TreeMap<>();
        Map<InetSocketAddress, String> addresses = new LinkedHashMap<>();
        byName.forEach((name, address) -> {
            if (name.isBlank() || OTHER.equals(name)) {
                throw new IllegalArgumentException(PREFIX + " name must not be blank nor '" + OTHER + "', was '" + name + "'");
            }
            String previous = addresses.putIfAbsent(address, name);
            if (previous != null) {
                throw new IllegalArgumentException(PREFIX + "." + name + ".address " + address
                        + " is already the address of peer '" + previous + "'");
            }
            names.put(name, address);
        });
        this.byName = Collections.unmodifiableMap(names);
        this.byAddress = Collections.unmodifiableMap(addresses);
    }

    /** No named peer: every peer is {@value #OTHER}. */
    public static ConfiguredPeers none() {
        return NONE;
    }

    /**
     * Reads {@code reliable-udp.peers.<name>.address} from the environment. Other properties under
     * each name (owned by the starter) are ignored; a name without an address is skipped.
     *
     * @throws IllegalArgumentException when an address is not {@code host:port} (naming the property)
     */
    public static ConfiguredPeers from(Environment environment) {
        Map<String, PeerEntry> entries = Binder.get(environment)
                .bind(PREFIX, Bindable.mapOf(String.class, PeerEntry.class))
                .orElse(Map.of());
        Map<String, InetSocketAddress> byName = new LinkedHashMap<>();
        entries.forEach((name, entry) -> {
            if (entry.address() != null && !entry.address().isBlank()) {
                byName.put(name, parse(PREFIX + "." + name + ".address", entry.address()));
            }
        });
        return new ConfiguredPeers(byName);
    }

    /**
     * Parses {@code host:port}, {@code [ipv6]:port}; the host is resolved now.
     *
     * @param property the property name, for the error message
     * @throws IllegalArgumentException when the text is not an address
     */
    public static InetSocketAddress parse(String property, String text) {
        try {
            return UdpAddresses.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(property + " must be host:port ([::1]:port for IPv6): " + e.getMessage());
        }
    }

    /** The name of the peer at that address, or {@value #OTHER}. */
    public String nameOf(InetSocketAddress address) {
        String name = byAddress.get(address);
        return name == null ? OTHER : name;
    }

    /** The configured address of that name, or null. */
    public @Nullable InetSocketAddress addressOf(String name) {
        return byName.get(name);
    }

    /** Name to address, sorted by name. */
    public Map<String, InetSocketAddress> byName() {
        return byName;
    }

    /** True when no peer is named. */
    public boolean isEmpty() {
        return byName.isEmpty();
    }

    @Override
    public String toString() {
        return "ConfiguredPeers" + byName;
    }

    /**
     * The one property this module reads under each peer name.
     *
     * @param address {@code host:port}
     */
    record PeerEntry(@Nullable String address) {
    }
}
