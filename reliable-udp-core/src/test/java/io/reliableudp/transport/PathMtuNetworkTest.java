package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.testsupport.NetworkNamespace;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Path-MTU discovery off the host over real kernels: a client namespace, a router namespace and a
 * server namespace joined by two veth pairs (10.77.1.0/24 and 10.77.2.0/24), the router forwarding and
 * dropping its own ICMP "destination unreachable" (so "fragmentation needed" never reaches the client:
 * a datagram too large for the router's link towards the server vanishes silently). A child JVM in
 * each end namespace ({@link PathMtuPeerMain}) streams numbered messages client to server. Needs root,
 * {@code ip} and {@code nft}; skipped with a message otherwise. What is timed is measured against the
 * connection's own resend interval, not a wall-clock bound.
 */
@Timeout(240)
class PathMtuNetworkTest {

    private static final String CLIENT_IP = "10.77.1.2";
    private static final String SERVER_IP = "10.77.2.2";
    private static final int PORT = 47_000;

    @Test
    void aPathOf1400BytesIsFoundWithinAFewSecondsWithoutAStallOrALostMessage() throws Exception {
        NetworkNamespace.assumeAvailable("path-MTU");
        Map<String, String> r = run(1500, 1400, 8, List.of());
        // IPv4: 1,400 less 20 (IP) and 8 (UDP) is the largest datagram the path carries
        assertThat(Integer.parseInt(r.get("budget"))).isBetween(1372 - 16, 1372);
        assertThat(Double.parseDouble(r.get("settled"))).as("settled, seconds into the stream").isLessThan(6);
        assertThat(r.get("failed")).isEqualTo("0");
        assertThat(Double.parseDouble(r.get("longestGapMs")))
                .as("no stall longer than one resend interval").isLessThanOrEqualTo(Double.parseDouble(r.get("resendIntervalMs")));
    }

    @Test
    void withTheRoutersIcmpAllowedAProbeIsNeverAnsweredThroughFragmentation() throws Exception {
        NetworkNamespace.assumeAvailable("path-MTU");
        // "fragmentation needed" reaches the client's kernel, which then knows the path's MTU: without
        // don't-fragment it would split a larger datagram and the probe would be answered in pieces
        Map<String, String> r = run(1500, 1400, 6, List.of(), false);
        assertThat(Integer.parseInt(r.get("budget"))).isBetween(1372 - 16, 1372);
        assertThat(r.get("failed")).isEqualTo("0");
    }

    @Test
    void jumboFramesAllTheWayGrowTheBudgetPastTheEthernetSize() throws Exception {
        NetworkNamespace.assumeAvailable("path-MTU");
        Map<String, String> r = run(9000, 9000, 4, List.of());
        assertThat(Integer.parseInt(r.get("budget"))).isGreaterThan(1472).isEqualTo(8952); // capped at maxDatagramBudget
        assertThat(r.get("failed")).isEqualTo("0");
    }

    @Test
    void aPathWhoseMtuDropsMidStreamRecoversWithoutALostMessage() throws Exception {
        NetworkNamespace.assumeAvailable("path-MTU");
        Map<String, String> r = run(1500, 1500, 9, List.of("ip", "-n", "%router", "link", "set", "dev", "r1", "mtu", "1280"));
        assertThat(Integer.parseInt(r.get("budgetBefore"))).isEqualTo(1472);
        assertThat(Integer.parseInt(r.get("budget"))).isBetween(1252 - 16, 1252);
        assertThat(Integer.parseInt(r.get("fallbacks"))).isGreaterThanOrEqualTo(1);
        assertThat(r.get("failed")).isEqualTo("0");
        // the stall after the drop: the first resend falls due a resend interval after the first lost
        // datagram, and goes at the base size; twice the interval leaves room for its round trip
        assertThat(Double.parseDouble(r.get("longestGapMs"))).as("stall after the drop, against the resend interval")
                .isLessThanOrEqualTo(2 * Double.parseDouble(r.get("resendIntervalMs")));
    }

    /**
     * Builds the three namespaces (the router dropping its ICMP errors unless told otherwise) with these MTUs on the client-router and router-server links, runs
     * the server and a client streaming for {@code seconds} (running {@code midStream} a third of the
     * way in, {@code %router} standing for the router's namespace), checks that every message arrived
     * in order, and returns the client's RESULT values.
     */
    private static Map<String, String> run(int clientMtu, int serverMtu, int seconds, List<String> midStream) throws Exception {
        return run(clientMtu, serverMtu, seconds, midStream, true);
    }

    private static Map<String, String> run(int clientMtu, int serverMtu, int seconds, List<String> midStream, boolean dropIcmp)
            throws Exception {
        try (NetworkNamespace client = NetworkNamespace.create("rudp-pmc");
             NetworkNamespace router = dropIcmp
                     ? NetworkNamespace.withOutputRule("rudp-pmr", "icmp", "type", "destination-unreachable", "drop")
                     : NetworkNamespace.create("rudp-pmr");
             NetworkNamespace server = NetworkNamespace.create("rudp-pms")) {
            NetworkNamespace.run("ip", "-n", client.name(), "link", "add", "c0", "mtu", String.valueOf(clientMtu), "type", "veth",
                    "peer", "name", "r0", "mtu", String.valueOf(clientMtu), "netns", router.name());
            NetworkNamespace.run("ip", "-n", router.name(), "link", "add", "r1", "mtu", String.valueOf(serverMtu), "type", "veth",
                    "peer", "name", "s0", "mtu", String.valueOf(serverMtu), "netns", server.name());
            client.exec("ip", "addr", "add", CLIENT_IP + "/24", "dev", "c0");
            client.exec("ip", "link", "set", "c0", "up");
            client.exec("ip", "route", "add", "default", "via", "10.77.1.1");
            router.exec("ip", "addr", "add", "10.77.1.1/24", "dev", "r0");
            router.exec("ip", "addr", "add", "10.77.2.1/24", "dev", "r1");
            router.exec("ip", "link", "set", "r0", "up");
            router.exec("ip", "link", "set", "r1", "up");
            router.exec("sysctl", "-qw", "net.ipv4.ip_forward=1");
            server.exec("ip", "addr", "add", SERVER_IP + "/24", "dev", "s0");
            server.exec("ip", "link", "set", "s0", "up");
            server.exec("ip", "route", "add", "default", "via", "10.77.2.1");

            Process s = server.javaChild(PathMtuPeerMain.class, "server", SERVER_IP, String.valueOf(PORT)).start();
            BufferedReader serverOut = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            try {
                String ready = serverOut.readLine(); // after the node's log lines (stderr is merged)
                while (ready != null && !ready.startsWith("READY")) {
                    ready = serverOut.readLine();
                }
                assertThat(ready).as("server started").startsWith("READY");
                List<String> args = new ArrayList<>(List.of("client", SERVER_IP, String.valueOf(PORT), String.valueOf(seconds)));
                for (String m : midStream) {
                    args.add(m.replace("%router", router.name()));
                }
                Process c = client.javaChild(PathMtuPeerMain.class, args.toArray(String[]::new)).start();
                String out = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(c.waitFor(150, TimeUnit.SECONDS)).as("client finished").isTrue();
                OutputStream in = s.getOutputStream();
                in.write('\n');
                in.flush();
                String received = serverOut.readLine();
                while (received != null && !received.startsWith("RECEIVED")) {
                    received = serverOut.readLine();
                }
                assertThat(s.waitFor(30, TimeUnit.SECONDS)).as("server finished").isTrue();
                System.out.println("path MTU " + clientMtu + "/" + serverMtu + (midStream.isEmpty() ? "" : " then " + midStream)
                        + ": " + out.trim() + " | server: " + received);
                assertThat(c.exitValue()).as(out).isZero();
                String line = out.lines().filter(l -> l.startsWith("RESULT ")).findFirst().orElseThrow(() -> new AssertionError(out));
                Map<String, String> result = new HashMap<>();
                for (String kv : line.substring("RESULT ".length()).split(" ")) {
                    int eq = kv.indexOf('=');
                    result.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                assertThat(result.get("finished")).as("every message acknowledged").isEqualTo("true");
                assertThat(received).as("every message arrived, in order").startsWith("RECEIVED " + result.get("sent") + " ordered=true");
                return result;
            } finally {
                s.destroyForcibly();
            }
        }
    }
}
