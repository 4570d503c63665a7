package io.reliableudp;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A DiffServ code point (DSCP, RFC 2474): the six high bits of the IPv4 TOS byte and of the IPv6
 * traffic class, which routers, switches and Wi-Fi access points may use to queue a datagram. A node
 * marks its datagrams with its class ({@code NodeConfig#trafficClass}) and a channel may override it
 * ({@code ChannelConfig#trafficClass}); docs/operations.md, "Traffic class (DSCP)", says what networks
 * do with it.
 *
 * <p>Only the DSCP is set: the two ECN bits stay 0 (not ECN-capable), because a sender that marks
 * ECT must slow down on the CE marks routers set instead of dropping, and the node cannot read the
 * TOS byte of the datagrams it receives to see them.
 *
 * @param dscp the code point, 0..63 (0: the default, best effort)
 */
public record TrafficClass(int dscp) {

    /** Best effort, DSCP 0 (also called CS0): what an unmarked datagram has. */
    public static final TrafficClass DEFAULT = new TrafficClass(0);
    /** Lower effort (RFC 8622), DSCP 1: below best effort, for bulk that may wait. */
    public static final TrafficClass LE = new TrafficClass(1);
    /** Class selector 1, DSCP 8: low-priority data (scavenger). */
    public static final TrafficClass CS1 = new TrafficClass(8);
    /** Assured forwarding 11, DSCP 10: high-throughput data. */
    public static final TrafficClass AF11 = new TrafficClass(10);
    /** Assured forwarding 21, DSCP 18: low-latency data. */
    public static final TrafficClass AF21 = new TrafficClass(18);
    /** Assured forwarding 31, DSCP 26: multimedia streaming. */
    public static final TrafficClass AF31 = new TrafficClass(26);
    /** Assured forwarding 41, DSCP 34: interactive multimedia (video). */
    public static final TrafficClass AF41 = new TrafficClass(34);
    /** Class selector 5, DSCP 40: signalling. */
    public static final TrafficClass CS5 = new TrafficClass(40);
    /** Expedited forwarding (RFC 3246), DSCP 46: telephony, small latency-critical packets. */
    public static final TrafficClass EF = new TrafficClass(46);
    /** Class selector 6, DSCP 48: network control. */
    public static final TrafficClass CS6 = new TrafficClass(48);

    /** The names {@link #valueOf} accepts, by code point: CS0..CS7, AF11..AF43, EF, LE. */
    private static final Map<String, Integer> NAMES = names();

    /** Validates the code point; a wrong one raises {@link InvalidConfigurationException}. */
    public TrafficClass {
        if (dscp < 0 || dscp > 63) {
            throw new InvalidConfigurationException("trafficClass", dscp, "must be a DSCP within 0..63");
        }
    }

    /**
     * The class a name or number stands for: a DSCP name (case-insensitive: {@code EF}, {@code AF41},
     * {@code CS6}, {@code CS0}..{@code CS7}, {@code AF11}..{@code AF43}, {@code LE}, {@code DEFAULT})
     * or a decimal code point 0..63. Spring binds configuration properties through this method.
     *
     * @param text the name or number
     * @return the class
     * @throws InvalidConfigurationException naming {@code trafficClass} when it is neither
     */
    public static TrafficClass valueOf(String text) {
        String t = text.strip().toUpperCase(Locale.ROOT);
        Integer named = NAMES.get(t);
        if (named != null) {
            return new TrafficClass(named);
        }
        if (!t.isEmpty() && t.length() <= 2 && t.chars().allMatch(Character::isDigit)) {
            return new TrafficClass(Integer.parseInt(t));
        }
        throw new InvalidConfigurationException("trafficClass", text,
                "must be a DSCP name (EF, AF41, CS6, ...) or a number within 0..63");
    }

    /** The IPv4 TOS byte (IPv6 traffic class) that carries this class: the DSCP in the high six bits, ECN 0. */
    public int tos() {
        return dscp << 2;
    }

    /** The class's name ({@code EF}, {@code AF41}, {@code CS0}, ...) or, for a code point without one, its number. */
    @Override
    public String toString() {
        for (Map.Entry<String, Integer> e : NAMES.entrySet()) {
            if (e.getValue() == dscp && !e.getKey().equals("DEFAULT")) {
                return e.getKey();
            }
        }
        return Integer.toString(dscp);
    }

    private static Map<String, Integer> names() {
        Map<String, Integer> m = new TreeMap<>();
        for (int cs = 0; cs <= 7; cs++) {
            m.put("CS" + cs, cs << 3);
        }
        for (int af = 1; af <= 4; af++) {
            for (int drop = 1; drop <= 3; drop++) {
                m.put("AF" + af + drop, (af << 3) | (drop << 1));
            }
        }
        m.put("EF", 46);
        m.put("LE", 1);
        m.put("DEFAULT", 0);
        return Map.copyOf(m);
    }
}
