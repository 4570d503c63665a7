package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardProtocolFamily;
import java.nio.channels.DatagramChannel;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The node's sockets forbid fragmentation ({@code IP_DONTFRAGMENT}), IPv4 and IPv6, so that a size probe
 * is answered only when the path carries the datagram whole (that it is, over a router that would
 * otherwise fragment, is {@code PathMtuNetworkTest}'s case with ICMP allowed).
 */
class DontFragmentTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void theNodesSocketsSetDontFragment(String address) throws Exception {
        InetAddress a = InetAddress.getByName(address);
        try (DatagramChannel ch = DatagramChannel.open(a.getAddress().length == 4 ? StandardProtocolFamily.INET
                : StandardProtocolFamily.INET6)) {
            SocketOption<?> df = ch.supportedOptions().stream().filter(o -> o.name().equals("IP_DONTFRAGMENT"))
                    .findFirst().orElse(null);
            Assumptions.assumeTrue(df != null, "skipped: IP_DONTFRAGMENT is not supported on this platform");
            ch.bind(new InetSocketAddress(a, 0));
            assertThat(ch.getOption(df)).as("the kernel's default").isEqualTo(false);
            PathBudget.dontFragment(ch);
            assertThat(ch.getOption(df)).isEqualTo(true);
        }
    }
}
