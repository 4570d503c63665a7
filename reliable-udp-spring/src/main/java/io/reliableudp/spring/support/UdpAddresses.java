package io.reliableudp.spring.support;

import java.net.Inet6Address;
import java.net.InetSocketAddress;

/**
 * The one {@code host:port} parser and formatter of the Spring modules: peer names in configuration,
 * template targets, listener filters, the actuator endpoint and the peer names of unnamed peers all go
 * through it, so an address reads and prints the same everywhere ({@code 127.0.0.1:40000},
 * {@code [::1]:40000}).
 */
public final class UdpAddresses {

    private UdpAddresses() {
    }

    /**
     * Formats an address as operators type it: {@code 127.0.0.1:40000}, {@code [::1]:40000} (no
     * scope id, no host name when the address is resolved).
     *
     * @param address the address
     * @return {@code host:port}
     */
    public static String format(InetSocketAddress address) {
        String host = address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
        if (address.getAddress() instanceof Inet6Address) {
            int scope = host.indexOf('%');
            host = "[" + (scope >= 0 ? host.substring(0, scope) : host) + "]";
        }
        return host + ":" + address.getPort();
    }

    /**
     * Whether the text has the shape of {@code host:port} (no resolution is attempted).
     *
     * @param text the text
     * @return true when {@link #parse} would not reject its form
     */
    public static boolean looksLikeAddress(String text) {
        try {
            check(text);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * Parses {@code host:port} or {@code [v6]:port}; the host is resolved now.
     *
     * @param text the text
     * @return the address
     * @throws IllegalArgumentException saying what is wrong with the text
     */
    public static InetSocketAddress parse(String text) {
        Parsed p = check(text);
        return new InetSocketAddress(p.host, p.port);
    }

    private record Parsed(String host, int port) {
    }

    private static Parsed check(String text) {
        String t = text.trim();
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) {
            throw new IllegalArgumentException("'" + text + "' is not host:port");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        } else if (host.indexOf(':') >= 0) {
            throw new IllegalArgumentException("'" + text + "': write an IPv6 address in brackets, e.g. [::1]:4000");
        }
        int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "': the port is not a number");
        }
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("'" + text + "': the port must be within 1..65535");
        }
        return new Parsed(host, port);
    }
}
