package io.reliableudp.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One job per class: no main class of the core or the Spring modules is longer than {@link #LIMIT} lines
 * (comments included: a class whose explanation needs that much space does too much), unless it is listed
 * in {@link #ONE_JOB} with the one job that makes it long. An entry that is no longer over the limit fails
 * too, so the list stays the current truth. Test sources, benchmarks and the demo are not held to it.
 */
class OneJobPerClassTests {

    static final int LIMIT = 500;

    /** The modules whose main classes are held to the limit. */
    static final List<String> MODULES = List.of(
            "reliable-udp-core", "reliable-udp-spring", "reliable-udp-spring-boot-autoconfigure",
            "reliable-udp-spring-cloud", "reliable-udp-test");

    /** Classes over the limit, by path under {@code src/main/java/io/reliableudp/}, and the one job each does. */
    static final Map<String, String> ONE_JOB = Map.ofEntries(
            Map.entry("packet/ReliableEndpoint.java", "the port of the C library reliable's endpoint, kept function for "
                    + "function beside reliable.c so that the conformance vectors and the reference read side by side"),
            Map.entry("packet/ReliableConfig.java", "the packet layer's settings: the fields of reliable_config_t with "
                    + "their defaults, their validation and the builder, one documented field at a time"),
            Map.entry("message/MessageEndpoint.java", "the message layer's public facade: it wires the layer's parts and "
                    + "documents the sans-I/O API (most of its length is that API's documentation); it decides nothing itself"),
            Map.entry("message/PacketComposer.java", "what goes into one packet: resends, new messages, slices, redundant "
                    + "copies and header-only packets, in the order the budget allows; it never decides when"),
            Map.entry("message/PacketLog.java", "the record of sent packets: what each carried, the bytes in flight, and the "
                    + "loss and delivery-rate samples read from that record"),
            Map.entry("message/DeliveryRateController.java", "one BBR-style model whose every field feeds one pacing rate and "
                    + "one window; its loss contrast and minimum-RTT filter are classes of their own"),
            Map.entry("connection/Connection.java", "one peer's connection state machine: its life cycle and the dispatch of "
                    + "what it receives; framing, liveness, the size probe, the handshake's timers and the session are parts "
                    + "of their own that never call back"),
            Map.entry("transport/DatagramNode.java", "the node behind ReliableUdpNode: it wires the lanes, the acceptor and "
                    + "the peers and carries the node's public operations"),
            Map.entry("transport/UdpDatagramPort.java", "one UDP port under the I/O loop: its socket's reads (one socket, "
                    + "or the group of its dedicated sockets in turn), sends and wake-ups; the traffic class of its sends is "
                    + "SocketMarking's"),
            Map.entry("transport/PeerDriver.java", "one peer's connection as its lane drives it: receive, tick, deadlines and "
                    + "writes under the peer's lock"),
            Map.entry("spring/core/ReliableUdpTemplate.java", "one-way sends: targets, defaults, ack modes and the answers a "
                    + "listener container sends through it (request/reply is ReplyingReliableUdpTemplate)"),
            Map.entry("spring/cloud/DiscoveryPeerGroup.java", "one discovery service as a peer group: membership, the choice "
                    + "of an instance and the drain of departed ones all read and write one snapshot under one lock"));

    private static Path root() {
        return Path.of(System.getProperty("repository.root", "..")).toAbsolutePath().normalize();
    }

    @Test
    void noMainClassIsLongerThanTheLimitUnlessItIsOneJob() throws IOException {
        Map<String, Integer> lines = mainClassLines(root());
        assertThat(lines).as("the walk finds the core's classes").containsKey("packet/ReliableEndpoint.java");
        assertThat(overLimit(lines)).as("main classes over %d lines that are not listed as one job in %s: split them "
                + "along their jobs, or list the one job that makes them long", LIMIT, getClass().getSimpleName())
                .isEmpty();
        assertThat(staleExemptions(lines)).as("classes listed as one long job that are gone or no longer over %d lines: "
                + "remove them from the list", LIMIT).isEmpty();
    }

    @Test
    void theRuleFlagsALongClassAndAStaleExemption() {
        Map<String, Integer> lines = new TreeMap<>();
        ONE_JOB.keySet().forEach(path -> lines.put(path, LIMIT + 100));
        lines.put("transport/Long.java", LIMIT + 1);
        lines.put("transport/Short.java", LIMIT);
        lines.put("packet/ReliableEndpoint.java", LIMIT - 1);
        assertThat(overLimit(lines)).containsExactly("transport/Long.java: " + (LIMIT + 1) + " lines");
        assertThat(staleExemptions(lines)).containsExactly("packet/ReliableEndpoint.java: " + (LIMIT - 1) + " lines");
    }

    static List<String> overLimit(Map<String, Integer> lines) {
        List<String> flagged = new ArrayList<>();
        lines.forEach((path, count) -> {
            if (count > LIMIT && !ONE_JOB.containsKey(path)) {
                flagged.add(path + ": " + count + " lines");
            }
        });
        return flagged;
    }

    static List<String> staleExemptions(Map<String, Integer> lines) {
        List<String> stale = new ArrayList<>();
        new TreeMap<>(ONE_JOB).keySet().forEach(path -> {
            Integer count = lines.get(path);
            if (count == null || count <= LIMIT) {
                stale.add(path + ": " + (count == null ? "missing" : count + " lines"));
            }
        });
        return stale;
    }

    static Map<String, Integer> mainClassLines(Path root) throws IOException {
        Map<String, Integer> lines = new TreeMap<>();
        for (String module : MODULES) {
            Path sources = root.resolve(module).resolve("src/main/java/io/reliableudp");
            assertThat(sources).as("main sources of %s", module).isDirectory();
            try (Stream<Path> walk = Files.walk(sources)) {
                for (Path file : walk.filter(p -> p.toString().endsWith(".java")).toList()) {
                    String key = sources.relativize(file).toString().replace('\\', '/');
                    try (Stream<String> fileLines = Files.lines(file)) {
                        lines.merge(key, (int) fileLines.count(), Math::max);
                    }
                }
            }
        }
        return lines;
    }
}
