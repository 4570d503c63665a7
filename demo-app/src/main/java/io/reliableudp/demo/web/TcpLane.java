package io.reliableudp.demo.web;

import io.reliableudp.demo.node.Ledger;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/**
 * A TCP lane beside the rovers: rover-1's position events, the same ones at the same moments, over
 * TCP with rover-1's loss, so the page shows TCP's head-of-line blocking next to reliable-udp. Real
 * loss in a network namespace ({@link NetnsTcpLane}, when the demo runs as root with iproute2 and
 * nftables) and the documented model ({@link ModelTcpLane}); the page labels each.
 */
interface TcpLane extends AutoCloseable {

    /**
     * Opens the lanes: {@code demo.tcp-lane} = {@code auto} (the namespace lane when possible, and the
     * model always: the namespace has loopback's round trip, the model a link's, docs/demo.md),
     * {@code netns} (the namespace lane or fail) or {@code model}.
     *
     * @param ledger where delivery latencies go (lanes {@code tcp-netns}, {@code tcp-model})
     * @param choice the setting
     * @return the open lanes, the namespace one first
     * @throws IOException when not even the model can open its loopback sockets
     */
    static List<TcpLane> open(Ledger ledger, String choice) throws IOException {
        String why;
        switch (choice.toLowerCase(Locale.ROOT)) {
            case "model" -> why = "demo.tcp-lane=model";
            case "auto", "netns" -> {
                StringBuilder reason = new StringBuilder();
                TcpLane lane = NetnsTcpLane.tryOpen(ledger, reason);
                if (lane != null) {
                    return choice.equalsIgnoreCase("netns") ? List.of(lane)
                            : List.of(lane, new ModelTcpLane(ledger, "beside the namespace lane: a link with rover-1's round trip"));
                }
                why = reason.toString();
                if (choice.equalsIgnoreCase("netns")) {
                    throw new IllegalStateException("demo.tcp-lane=netns, but no network namespace: " + why);
                }
                System.out.println("  tcp lane: no network namespace (" + why + "): using the documented model");
            }
            default -> throw new IllegalArgumentException("demo.tcp-lane must be auto, netns or model, was " + choice);
        }
        return List.of(new ModelTcpLane(ledger, "no network namespace here: " + why));
    }

    /** Follows rover-1's link: loss probability 0..1 and one-way latency. */
    void follow(double lossProbability, double latencyMillis);

    /** Sends one event (called by the traffic thread at rover-1's rate, with rover-1's send time). */
    void send(long seq, long nowNanos);

    /** Events sent. */
    long sent();

    /** Events the receiving end read (in order: TCP cannot deliver otherwise). */
    long delivered();

    /** The lane's name on the page and in the ledger: {@code tcp-netns} or {@code tcp-model}. */
    String name();

    /** How its loss is made, for the page. */
    String mode();

    /** What the lane is, for the page. */
    String description();

    @Override
    void close();
}
