package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.TrafficClass;
import io.reliableudp.testsupport.NetworkNamespace;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The DSCP the kernel puts on the wire, seen by nftables counters in a network namespace (root only;
 * skipped with a message otherwise): a child JVM ({@link DscpPeerMain}) runs a server and a client
 * node over loopback, the client sending on a channel of the node's class and on one with a class of
 * its own, and counters on the namespace's output count each side's datagrams by DSCP. The node's
 * class marks the handshake, the acks and keepalives (everything the server sends) and the first
 * channel's packets; the override marks the other channel's; nothing else leaves; the ECN bits stay
 * 0; with the default class every datagram leaves with TOS 0. Over IPv4, IPv6 and a dual-stack
 * socket sending to an IPv4 address (the JDK's {@code IP_TOS} on an IPv6 socket), on both socket
 * ports: the plain one sets the socket option when the class changes, the batched one puts an
 * {@code IP_TOS} or {@code IPV6_TCLASS} cmsg on each datagram of another class than the socket's.
 */
@Timeout(180)
class DscpMarkingTest {

    @ParameterizedTest(name = "{5} port, bind {0} to {1}: node {3}, channel {4}")
    @CsvSource({
        "127.0.0.1, 127.0.0.1, ip,  CS6,     EF,   plain",
        "::1,       ::1,       ip6, CS6,     EF,   plain",
        "*,         127.0.0.1, ip,  AF41,    EF,   plain",
        "*,         ::1,       ip6, AF41,    CS5,  plain",
        "127.0.0.1, 127.0.0.1, ip,  DEFAULT, -,    plain",
        "::1,       ::1,       ip6, DEFAULT, -,    plain",
        "127.0.0.1, 127.0.0.1, ip,  CS6,     EF,   batched",
        "::1,       ::1,       ip6, CS6,     EF,   batched",
        "*,         127.0.0.1, ip,  AF41,    EF,   batched",
        "*,         ::1,       ip6, AF41,    CS5,  batched",
        "127.0.0.1, 127.0.0.1, ip,  DEFAULT, EF,   batched",
    })
    void theNodeClassMarksHandshakeAcksAndItsChannelsAndAChannelOverrideMarksThatChannelsDatagrams(
            String bind, String target, String family, String node, String channel, String portKind) throws Exception {
        NetworkNamespace.assumeAvailable("DSCP marking");
        String nodeDscp = dscpName(node);
        String channelDscp = channel.equals("-") ? null : dscpName(channel);
        try (NetworkNamespace ns = NetworkNamespace.create("rudp-dscp")) {
            ns.exec("nft", "add", "table", "inet", NetworkNamespace.TABLE);
            ns.exec("nft", "add", "chain", "inet", NetworkNamespace.TABLE, NetworkNamespace.CHAIN,
                    "{ type filter hook output priority 0; }");
            for (int port : new int[] {DscpPeerMain.SERVER_PORT, DscpPeerMain.CLIENT_PORT}) {
                String from = "meta nfproto " + (family.equals("ip") ? "ipv4" : "ipv6") + " udp sport " + port;
                counter(ns, port + "-all", from);
                counter(ns, port + "-node", from + " " + family + " dscp " + nodeDscp);
                if (channelDscp != null) {
                    counter(ns, port + "-channel", from + " " + family + " dscp " + channelDscp);
                }
                // the first payload byte: request, challenge, response, accept
                counter(ns, port + "-handshake", from + " @th,64,8 { 1, 2, 3, 8 }");
                counter(ns, port + "-handshake-node", from + " @th,64,8 { 1, 2, 3, 8 } " + family + " dscp " + nodeDscp);
                counter(ns, port + "-ecn", from + " " + family + " ecn != not-ect");
            }

            Process p = ns.javaChild(DscpPeerMain.class, bind, target, node, channel, "300", portKind).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("child finished").isTrue();
            assertThat(p.exitValue()).as(out).isZero();
            assertThat(out).as("the port both nodes ran on").contains("server=" + portKind).contains("client=" + portKind);

            Map<String, Long> c = counters(ns.exec("nft", "-j", "list", "ruleset"));
            System.out.println("bind " + bind + " to " + target + ", node " + node + ", channel " + channel + ": " + c);
            String server = DscpPeerMain.SERVER_PORT + "-";
            String client = DscpPeerMain.CLIENT_PORT + "-";
            // the server sends the challenge (or accept), acks and keepalives only: all of the node's class
            assertThat(c.get(server + "all")).as("server datagrams").isPositive();
            assertThat(c.get(server + "node")).as("server datagrams of the node's class").isEqualTo(c.get(server + "all"));
            assertThat(c.get(server + "handshake")).as("server handshake datagrams").isPositive();
            assertThat(c.get(server + "handshake-node")).isEqualTo(c.get(server + "handshake"));
            assertThat(c.get(client + "handshake")).as("client handshake datagrams").isPositive();
            assertThat(c.get(client + "handshake-node")).isEqualTo(c.get(client + "handshake"));
            assertThat(c.get(client + "node")).as("client datagrams of the node's class").isPositive();
            if (channelDscp == null) {
                assertThat(c.get(client + "node")).as("client datagrams").isEqualTo(c.get(client + "all"));
            } else {
                assertThat(c.get(client + "channel")).as("client datagrams of the channel's class").isPositive();
                assertThat(c.get(client + "node") + c.get(client + "channel")).as("client datagrams")
                        .isEqualTo(c.get(client + "all"));
            }
            assertThat(c.get(server + "ecn") + c.get(client + "ecn")).as("datagrams with ECN bits").isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"127.0.0.1, ip", "::1, ip6"})
    void theBatchedPortMarksEachDatagramOfAnotherClassWhetherItsLoopQueuedItOrAnotherThreadSentItAtOnce(
            String host, String family) throws Exception {
        NetworkNamespace.assumeAvailable("DSCP marking");
        try (NetworkNamespace ns = NetworkNamespace.create("rudp-dscp")) {
            ns.exec("nft", "add", "table", "inet", NetworkNamespace.TABLE);
            ns.exec("nft", "add", "chain", "inet", NetworkNamespace.TABLE, NetworkNamespace.CHAIN,
                    "{ type filter hook output priority 0; }");
            String from = "meta nfproto " + (family.equals("ip") ? "ipv4" : "ipv6") + " udp sport " + BatchedMarkMain.SOURCE_PORT;
            counter(ns, "all", from);
            for (String dscp : new String[] {"ef", "af41", "af31", "cs6"}) {
                counter(ns, dscp, from + " " + family + " dscp " + dscp);
            }
            Process p = ns.javaChild(BatchedMarkMain.class, host, "40").start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("child finished").isTrue();
            assertThat(p.exitValue()).as(out).isZero();
            Map<String, Long> c = counters(ns.exec("nft", "-j", "list", "ruleset"));
            // one datagram, one packet, except a GSO run: one packet at the output hook (lo never splits it)
            assertThat(c).as(out).containsEntry("ef", 40L).containsEntry("af41", 40L);
            assertThat(c.get("af31")).as("a marked GSO run").isPositive();
            assertThat(c.get("cs6")).as("the socket's own class").isPositive();
            assertThat(c.get("all")).as("every packet of one of the three classes")
                    .isEqualTo(c.get("ef") + c.get("af41") + c.get("af31") + c.get("cs6"));
        }
    }

    /** nft's name of a class: cs0..cs7, af11..af43, ef (DEFAULT is cs0). */
    private static String dscpName(String trafficClass) {
        return TrafficClass.valueOf(trafficClass).toString().toLowerCase(java.util.Locale.ROOT);
    }

    private static void counter(NetworkNamespace ns, String name, String match) throws Exception {
        ns.exec("nft", "add rule inet " + NetworkNamespace.TABLE + " " + NetworkNamespace.CHAIN + " " + match
                + " counter comment \"" + name + "\"");
    }

    /** The packets each commented rule counted, from {@code nft -j list ruleset}. */
    private static Map<String, Long> counters(String json) {
        Map<String, Long> counts = new HashMap<>();
        for (JsonNode item : JsonMapper.builder().build().readTree(json).get("nftables")) {
            JsonNode rule = item.get("rule");
            if (rule == null || rule.get("comment") == null) {
                continue;
            }
            for (JsonNode expr : rule.get("expr")) {
                if (expr.has("counter")) {
                    counts.put(rule.get("comment").asString(), expr.get("counter").get("packets").asLong());
                }
            }
        }
        return counts;
    }
}
