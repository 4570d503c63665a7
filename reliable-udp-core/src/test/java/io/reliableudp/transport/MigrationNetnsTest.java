package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.testsupport.NetworkNamespace;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Connection migration through a real NAT (docs/connection.md, "Migration"): a client namespace behind a
 * router namespace that translates its address statelessly with nftables, and a server namespace; each
 * end a child JVM ({@link MigrationPeerMain}) streaming reliable messages to the other, with 100 ms of
 * one-way delay from the nodes' link conditioners, so that a round trip is long against the scheduling
 * noise of a loaded machine (this kernel has no netem).
 * Mid-stream the router's mapping changes, first to a new source port, then to a new address (the old
 * mapping is dead: what the server sends there is dropped). Asserted: no message lost or duplicated, in
 * order; after each move, delivery in both directions resumes (the pause that began around the move
 * ends) within two measured round trips of the server's first datagram from the new address; no new
 * handshake; a
 * copy of a real datagram and a forged one sent from a third address move nothing. Needs root,
 * {@code ip} and {@code nft}; skipped with a message otherwise.
 */
@Timeout(180)
class MigrationNetnsTest {

    private static final String CLIENT_IP = "10.77.1.2";
    private static final String SERVER_IP = "10.77.2.2";
    private static final String OUTER_1 = "10.77.2.1";
    private static final String OUTER_2 = "10.77.2.5";
    private static final String THIRD = "10.77.2.9";
    private static final int SERVER_PORT = 6000;
    private static final double LATENCY_MS = 100;

    /** A child JVM's stdout, line by line, and its stdin. */
    private static final class Child implements AutoCloseable {
        final Process process;
        final PrintWriter in;
        final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final List<String> all = new ArrayList<>();

        Child(ProcessBuilder pb) throws Exception {
            process = pb.start();
            in = new PrintWriter(process.getOutputStream(), true, StandardCharsets.US_ASCII);
            Thread.ofVirtual().start(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
                    String l;
                    while ((l = r.readLine()) != null) {
                        synchronized (all) {
                            all.add(l);
                        }
                        lines.add(l);
                    }
                } catch (Exception e) {
                    lines.add("EOF " + e);
                }
            });
        }

        /** The next line starting with {@code prefix} (others are skipped: logs), within 30 s. */
        String await(String prefix) throws Exception {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < until) {
                String l = lines.poll(1, TimeUnit.SECONDS);
                if (l != null && l.startsWith(prefix)) {
                    return l;
                }
            }
            synchronized (all) {
                throw new AssertionError("no line '" + prefix + "' from the child; it wrote: " + all);
            }
        }

        void send(String line) {
            in.println(line);
        }

        @Override
        public void close() {
            process.destroyForcibly();
        }
    }

    private static void nat(NetworkNamespace router, String outer, int port) throws Exception {
        String rules = """
                flush ruleset
                table ip rudpnat {
                  chain raw_pre { type filter hook prerouting priority -300; notrack; }
                  chain raw_out { type filter hook output priority -300; notrack; }
                  chain pre { type filter hook prerouting priority -150;
                    iifname "r1" ip daddr %1$s udp dport %2$d ip daddr set %3$s udp dport set 5000
                  }
                  chain post { type filter hook postrouting priority 100;
                    oifname "r1" ip saddr %3$s udp sport 5000 ip saddr set %1$s udp sport set %2$d
                    oifname "r1" ip saddr 10.77.1.0/24 drop
                  }
                }
                """.formatted(outer, port, CLIENT_IP);
        java.nio.file.Path file = java.nio.file.Files.createTempFile("rudp-nat", ".nft");
        try {
            java.nio.file.Files.writeString(file, rules);
            router.exec("nft", "-f", file.toString());
        } finally {
            java.nio.file.Files.deleteIfExists(file);
        }
    }

    private static long field(String line, String name) {
        for (String part : line.split(" ")) {
            if (part.startsWith(name + "=")) {
                return Long.parseLong(part.substring(name.length() + 1));
            }
        }
        throw new AssertionError("no " + name + " in " + line);
    }

    private static List<Long> gaps(String line) {
        List<Long> out = new ArrayList<>();
        for (String part : line.split(" ")) {
            if (part.startsWith("gap=")) {
                out.add(Long.parseLong(part.substring(4)));
            }
        }
        return out;
    }

    @Test
    void aConnectionSurvivesANewPortThenANewAddressOfItsNat() throws Exception {
        NetworkNamespace.assumeAvailable("migration");
        try (NetworkNamespace client = NetworkNamespace.create("rudp-mc");
             NetworkNamespace router = NetworkNamespace.create("rudp-mr");
             NetworkNamespace server = NetworkNamespace.create("rudp-ms")) {
            client.exec("ip", "link", "add", "c0", "type", "veth", "peer", "name", "r0", "netns", router.name());
            server.exec("ip", "link", "add", "s0", "type", "veth", "peer", "name", "r1", "netns", router.name());
            client.exec("ip", "addr", "add", CLIENT_IP + "/24", "dev", "c0");
            client.exec("ip", "link", "set", "c0", "up");
            client.exec("ip", "route", "add", "default", "via", "10.77.1.1");
            router.exec("ip", "addr", "add", "10.77.1.1/24", "dev", "r0");
            router.exec("ip", "link", "set", "r0", "up");
            for (String a : List.of(OUTER_1, OUTER_2, THIRD)) {
                router.exec("ip", "addr", "add", a + "/24", "dev", "r1");
            }
            router.exec("ip", "link", "set", "r1", "up");
            router.exec("sysctl", "-qw", "net.ipv4.ip_forward=1");
            server.exec("ip", "addr", "add", SERVER_IP + "/24", "dev", "s0");
            server.exec("ip", "link", "set", "s0", "up");
            nat(router, OUTER_1, 40001);

            try (Child s = new Child(server.javaChild(MigrationPeerMain.class, "server", SERVER_IP,
                    String.valueOf(SERVER_PORT), String.valueOf(LATENCY_MS)));
                 Child c = new Child(client.javaChild(MigrationPeerMain.class, "client", CLIENT_IP, SERVER_IP,
                         String.valueOf(SERVER_PORT), String.valueOf(LATENCY_MS)))) {
                s.await("READY");
                long rtt = Long.parseLong(c.await("RTT").split(" ")[1]);
                c.await("STREAMING");
                s.send("STREAM");
                Thread.sleep(1500);

                nat(router, OUTER_1, 40002); // a new source port
                String first = s.await("MIGRATED");
                Thread.sleep(1500);
                nat(router, OUTER_2, 40003); // a new address
                String second = s.await("MIGRATED");
                Thread.sleep(1500);
                assertThat(first).contains("/" + OUTER_1 + ":40001 /" + OUTER_1 + ":40002");
                assertThat(second).contains("/" + OUTER_1 + ":40002 /" + OUTER_2 + ":40003");

                // off-path: a copy of a real datagram (after the real one arrived) and a forged one, from a third address
                c.send("COPY");
                String copy = c.await("COPY").split(" ")[1];
                String forged = copy.substring(0, 10) + "7f00000000000000" + copy.substring(26);
                Process spoof = router.javaChild(MigrationPeerMain.class, "spoof", THIRD, SERVER_IP,
                        String.valueOf(SERVER_PORT), copy, forged).start();
                String spoofed = new String(spoof.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                assertThat(spoof.waitFor(30, TimeUnit.SECONDS)).isTrue();
                assertThat(spoofed).contains("SPOOFED 2");
                Thread.sleep(300);

                s.send("STATS");
                String stats = s.await("STATS");
                c.send("STOP");
                s.send("STOP");
                long upSent = Long.parseLong(c.await("SENT").split(" ")[1]);
                long downSent = Long.parseLong(s.await("SENT").split(" ")[1]);
                Thread.sleep(2000); // the last resends land
                long move1 = field(first, "moved");
                long move2 = field(second, "moved");
                s.send("REPORT " + rtt + " " + move1 + " " + move2);
                c.send("REPORT " + rtt + " " + move1 + " " + move2);
                String up = s.await("RESULT");
                String down = c.await("RESULT");
                System.out.println("migration through a NAT: rtt=" + rtt / 1000 + " us; " + stats + "; " + up + " (sent " + upSent
                        + "); " + down + " (sent " + downSent + ")");

                assertThat(field(stats, "migrations")).isEqualTo(2);
                assertThat(field(stats, "failed")).isZero();
                assertThat(field(stats, "opened")).as("no new handshake").isEqualTo(1);
                assertThat(field(stats, "replayed")).as("the copy").isGreaterThanOrEqualTo(1);
                assertThat(field(stats, "decrypt_failed")).as("the forgery").isGreaterThanOrEqualTo(1);
                assertThat(stats).contains("address=/" + OUTER_2 + ":40003");
                for (String r : List.of(up, down)) {
                    assertThat(r).contains("duplicates=0", "ordered=true");
                }
                assertThat(field(up, "received")).as("up: none lost").isEqualTo(upSent);
                assertThat(field(down, "received")).as("down: none lost").isEqualTo(downSent);
                for (String r : List.of(up, down)) {
                    for (long gap : gaps(r)) {
                        assertThat(gap).as("delivery resumed within 2 round trips (%d us) of the move: %s", 2 * rtt / 1000, r)
                                .isBetween(0L, 2 * rtt);
                    }
                }
            }
        }
    }
}
