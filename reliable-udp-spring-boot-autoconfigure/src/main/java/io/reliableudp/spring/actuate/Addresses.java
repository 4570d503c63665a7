package io.reliableudp.spring.actuate;

import java.net.Inet6Address;
import java.net.InetSocketAddress;

/** Formats socket addresses as operators type them: {@code 127.0.0.1:40000}, {@code [::1]:40000}. */
final class Addresses {

    private Addresses() {
    }

    static String format(InetSocketAddress address) {
        String host = address.getAddress() != null ? address.getAddress().getHostAddress() : address.getHostString();
        if (address.getAddress() instanceof Inet6Address) {
            int scope = host.indexOf('%');
            host = "[" + (scope >= 0 ? host.substring(0, scope) : host) + "]";
        }
        return host + ":" + address.getPort();
    }
}
