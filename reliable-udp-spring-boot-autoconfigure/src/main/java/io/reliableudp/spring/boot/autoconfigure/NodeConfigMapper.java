package io.reliableudp.spring.boot.autoconfigure;

import io.reliableudp.InvalidConfigurationException;
import io.reliableudp.TrafficClass;
import io.reliableudp.link.LinkConditionerConfig;
import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.spring.support.UdpAddresses;
import io.reliableudp.transport.NodeConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Turns {@link ReliableUdpProperties} into a {@link NodeConfig}, channel names and peer addresses. Every
 * value the core rejects is reported as an {@link InvalidReliableUdpPropertyException} naming the
 * property: the core's {@link InvalidConfigurationException} names its own field ({@code field()}),
 * which is mapped back to the property; its message is shown, never parsed.
 */
final class NodeConfigMapper {

    private static final String P = "reliable-udp.";

    /** Core field name ({@link InvalidConfigurationException#field()}) to property name, where kebab-case is not enough. */
    private static final Map<String, String> FIELDS = Map.ofEntries(
            Map.entry("maxConnections", P + "max-connections"),
            Map.entry("sendRateHz", P + "send-rate"),
            Map.entry("keepAliveInterval", P + "keep-alive-interval"),
            Map.entry("timeout", P + "timeout"),
            Map.entry("connectTimeout", P + "connect-timeout"),
            Map.entry("sendQueueWait", P + "send-queue-wait"),
            Map.entry("preSharedKey", P + "security.pre-shared-key"),
            Map.entry("identity", P + "security.identity.private-key"),
            Map.entry("allowedPeers", P + "security.allowed-peers"),
            Map.entry("socketReceiveBufferSize", P + "socket-receive-buffer-size"),
            Map.entry("socketSendBufferSize", P + "socket-send-buffer-size"),
            Map.entry("ioThreads", P + "io-threads"),
            Map.entry("dedicatedSockets", P + "dedicated-sockets"),
            Map.entry("batchedIo", P + "batched-io"),
            Map.entry("receiveMemoryLimit", P + "receive-memory-limit"),
            Map.entry("channels", P + "channels"),
            Map.entry("datagramBudget", P + "message.datagram-budget"),
            Map.entry("maxDatagramBudget", P + "message.max-datagram-budget"),
            Map.entry("resendPolicy", P + "message.resend-policy"),
            Map.entry("resendRttFactor", P + "message.resend-rtt-factor"),
            Map.entry("minResendIntervalSeconds", P + "message.min-resend-interval"),
            Map.entry("maxResendIntervalSeconds", P + "message.max-resend-interval"),
            Map.entry("ackDelaySeconds", P + "message.ack-delay"),
            Map.entry("sendMode", P + "send-mode"),
            Map.entry("maxMessageSize", P + "message.max-message-size"),
            Map.entry("sliceSize", P + "message.slice-size"),
            Map.entry("maxBytesInFlight", P + "message.max-bytes-in-flight"),
            Map.entry("latencyMillis", P + "link-conditioner.latency"),
            Map.entry("jitterMillis", P + "link-conditioner.jitter"),
            Map.entry("lossProbability", P + "link-conditioner.loss"),
            Map.entry("burstEnterProbability", P + "link-conditioner.burst-enter"),
            Map.entry("burstExitProbability", P + "link-conditioner.burst-exit"),
            Map.entry("burstLossProbability", P + "link-conditioner.burst-loss"),
            Map.entry("duplicateProbability", P + "link-conditioner.duplicate"),
            Map.entry("reorderProbability", P + "link-conditioner.reorder"),
            Map.entry("reorderDelayMillis", P + "link-conditioner.reorder-delay"),
            Map.entry("bandwidthBytesPerSecond", P + "link-conditioner.bandwidth"),
            Map.entry("queueLimitBytes", P + "link-conditioner.queue-limit"));

    /** {@link ChannelConfig} field name to the channel property's own name, where kebab-case is not enough. */
    private static final Map<String, String> CHANNEL_FIELDS = Map.of("mode", "delivery-mode");

    /** {@link MessageConfig} field names whose property differs from the {@link NodeConfig} field of the same name. */
    private static final Map<String, String> MESSAGE_FIELDS = Map.of("receiveMemoryLimit", P + "message.receive-memory-limit");

    /** The default channels (as MessageConfig's defaults) and their names. */
    static final Map<String, DeliveryMode> DEFAULT_CHANNELS = defaultChannels();

    private NodeConfigMapper() {
    }

    private static Map<String, DeliveryMode> defaultChannels() {
        Map<String, DeliveryMode> m = new LinkedHashMap<>();
        m.put("reliable-ordered", DeliveryMode.RELIABLE_ORDERED);
        m.put("reliable-unordered", DeliveryMode.RELIABLE_UNORDERED);
        m.put("unreliable", DeliveryMode.UNRELIABLE);
        m.put("unreliable-sequenced", DeliveryMode.UNRELIABLE_SEQUENCED);
        return m;
    }

    /**
     * The node's settings from the properties.
     *
     * @param props the properties
     * @return the builder, validated (it built once)
     * @throws InvalidReliableUdpPropertyException for a bad value
     */
    static NodeConfig.Builder toBuilder(ReliableUdpProperties props) {
        InetSocketAddress bind = bindAddress(props);
        MessageConfig message = message(props);
        byte[] key = preSharedKey(props.security());
        SecurityKeys keys = SecurityKeys.load(props.security());
        NodeConfig.Builder builder = NodeConfig.builder()
                .bindAddress(bind)
                .message(message)
                .acceptIncoming(props.acceptIncoming())
                .maxConnections(props.maxConnections())
                .protocolId(props.protocolId())
                .sendRateHz(props.sendRate())
                .keepAliveInterval(props.keepAliveInterval())
                .timeout(props.timeout())
                .connectTimeout(props.connectTimeout())
                .sendQueueWait(props.sendQueueWait())
                .preSharedKey(key)
                .identity(keys.identity())
                .allowedPeers(keys.allowedPeers())
                .receiveThreadMode(props.receiveThreadMode())
                .sendMode(props.sendMode())
                .receiveBusyPoll(props.receiveBusyPoll())
                .socketReceiveBufferSize(intBytes(P + "socket-receive-buffer-size", props.socketReceiveBufferSize().toBytes()))
                .socketSendBufferSize(intBytes(P + "socket-send-buffer-size", props.socketSendBufferSize().toBytes()))
                .ioThreads(props.ioThreads())
                .dedicatedSockets(props.dedicatedSockets())
                .batchedIo(props.batchedIo())
                .receiveMemoryLimit(props.receiveMemoryLimit().toBytes())
                .trafficClass(trafficClass(P + "traffic-class", props.trafficClass()))
                .pathMtuDiscovery(props.pathMtuDiscovery())
                .linkConditioner(linkConditioner(props.linkConditioner()));
        if (key != null) {
            Arrays.fill(key, (byte) 0);
        }
        guard(builder::build);
        return builder;
    }

    /**
     * Channel names by index.
     *
     * @param props the properties
     * @return names by index
     */
    static Map<Integer, String> channelNames(ReliableUdpProperties props) {
        Map<Integer, String> names = new TreeMap<>();
        if (props.channels().isEmpty()) {
            int i = 0;
            for (String name : DEFAULT_CHANNELS.keySet()) {
                names.put(i++, name);
            }
            return names;
        }
        props.channels().forEach((name, c) -> {
            if (c.index() != null) {
                names.put(c.index(), name);
            }
        });
        return names;
    }

    /**
     * The named peers' addresses.
     *
     * @param props the properties
     * @return addresses by name
     */
    static Map<String, InetSocketAddress> peers(ReliableUdpProperties props) {
        Map<String, InetSocketAddress> peers = new LinkedHashMap<>();
        props.peers().forEach((name, peer) -> {
            String property = P + "peers." + name + ".address";
            if (peer.isService()) {
                if (peer.address() != null && !peer.address().isBlank()) {
                    throw new InvalidReliableUdpPropertyException(property, peer.address(),
                            "a peer has either an address or a service-id, not both",
                            "remove " + property + " or " + P + "peers." + name + ".service-id");
                }
                return;   // a group: reliable-udp-spring-cloud resolves it
            }
            if (peer.address() == null || peer.address().isBlank()) {
                throw new InvalidReliableUdpPropertyException(property, null, "a named peer needs an address",
                        "set it to the peer's host:port, e.g. " + property + "=127.0.0.1:40000");
            }
            InetSocketAddress address;
            try {
                address = UdpAddresses.parse(peer.address());
            } catch (IllegalArgumentException e) {
                throw new InvalidReliableUdpPropertyException(property, peer.address(), e.getMessage(),
                        "write host:port (or [IPv6]:port), e.g. 127.0.0.1:40000");
            }
            if (address.isUnresolved()) {
                throw new InvalidReliableUdpPropertyException(property, peer.address(), "the host name cannot be resolved",
                        "use a resolvable host name or an IP address");
            }
            peers.put(name, address);
        });
        return peers;
    }

    private static InetSocketAddress bindAddress(ReliableUdpProperties props) {
        if (props.port() < 0 || props.port() > 65_535) {
            throw new InvalidReliableUdpPropertyException(P + "port", Integer.toString(props.port()),
                    "a UDP port is within 0..65535", "use 0 for any free port, or a port within 1..65535");
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(props.bindAddress()), props.port());
        } catch (UnknownHostException e) {
            throw new InvalidReliableUdpPropertyException(P + "bind-address", props.bindAddress(),
                    "not an address of this host", "use an IP address of this host, 0.0.0.0 or :: (every interface), or 127.0.0.1");
        }
    }

    private static MessageConfig message(ReliableUdpProperties props) {
        ReliableUdpProperties.Message m = props.message();
        List<ChannelConfig> channels = channels(props);
        MessageConfig.Builder b = MessageConfig.builder()
                .channels(channels)
                .datagramBudget(m.datagramBudget())
                .maxDatagramBudget(m.maxDatagramBudget())
                .resendPolicy(m.resendPolicy())
                .resendRttFactor(m.resendRttFactor())
                .minResendIntervalSeconds(m.minResendInterval().toNanos() / 1e9)
                .maxResendIntervalSeconds(m.maxResendInterval().toNanos() / 1e9)
                .ackDelaySeconds(m.ackDelay().toNanos() / 1e9)
                .fastRecovery(m.fastRecovery())
                .maxMessageSize(intBytes(P + "message.max-message-size", m.maxMessageSize().toBytes()))
                .sliceSize(m.sliceSize())
                .maxBytesInFlight(m.maxBytesInFlight().toBytes())
                .congestionAvoidance(m.congestionAvoidance())
                .congestionControl(m.congestionControl());
        if (m.receiveMemoryLimit() != null) {
            b.receiveMemoryLimit(m.receiveMemoryLimit().toBytes());
        }
        return guard(b::build, null, MESSAGE_FIELDS);
    }

    private static List<ChannelConfig> channels(ReliableUdpProperties props) {
        if (props.channels().isEmpty()) {
            List<ChannelConfig> list = new ArrayList<>();
            DEFAULT_CHANNELS.values().forEach(mode -> list.add(ChannelConfig.of(mode)));
            return list;
        }
        if (props.channels().size() > MessageConfig.MAX_CHANNELS) {
            throw new InvalidReliableUdpPropertyException(P + "channels", props.channels().size() + " channels",
                    "at most " + MessageConfig.MAX_CHANNELS + " channels are supported", "remove channels");
        }
        ChannelConfig[] byIndex = new ChannelConfig[props.channels().size()];
        String[] names = new String[byIndex.length];
        for (Map.Entry<String, ReliableUdpProperties.Channel> e : props.channels().entrySet()) {
            String name = e.getKey();
            ReliableUdpProperties.Channel c = e.getValue();
            String property = P + "channels." + name + ".index";
            if (c.index() == null) {
                throw new InvalidReliableUdpPropertyException(property, null, "every channel needs an explicit index",
                        "give each channel a distinct index from 0 to " + (byIndex.length - 1)
                                + "; both nodes must use the same index for the same channel");
            }
            int i = c.index();
            if (i < 0 || i >= byIndex.length) {
                throw new InvalidReliableUdpPropertyException(property, Integer.toString(i),
                        "with " + byIndex.length + " channels the indexes are 0.." + (byIndex.length - 1),
                        "number the channels 0.." + (byIndex.length - 1) + " without gaps");
            }
            if (byIndex[i] != null) {
                throw new InvalidReliableUdpPropertyException(property, Integer.toString(i),
                        "channel '" + names[i] + "' has index " + i + " too", "give each channel its own index");
            }
            if (name.chars().allMatch(Character::isDigit)) {
                throw new InvalidReliableUdpPropertyException(P + "channels." + name, name,
                        "a channel name must not be a number (numbers refer to indexes)", "name the channel, e.g. 'events'");
            }
            String prefix = P + "channels." + name + ".";
            TrafficClass trafficClass = c.trafficClass() == null ? null : trafficClass(prefix + "traffic-class", c.trafficClass());
            byIndex[i] = guard(() -> {
                ChannelConfig cc = new ChannelConfig(c.deliveryMode(), c.maxQueuedMessages(), c.maxQueuedBytes().toBytes(),
                        c.redundancy(), java.util.Optional.ofNullable(trafficClass));
                return c.ttl() == null ? cc : cc.ttl(c.ttl());
            }, prefix);
            names[i] = name;
        }
        return List.of(byIndex);
    }

    /** A DSCP name or number, or a failure naming {@code property}. */
    private static TrafficClass trafficClass(String property, String text) {
        try {
            return TrafficClass.valueOf(text);
        } catch (InvalidConfigurationException e) {
            throw new InvalidReliableUdpPropertyException(property, text, e.rule(),
                    "use a DSCP name (EF, AF41, CS6, CS0..CS7, AF11..AF43, LE, DEFAULT) or a number within 0..63");
        }
    }

    private static byte[] preSharedKey(ReliableUdpProperties.Security security) {
        String text = security.preSharedKey();
        if (text == null || text.isBlank()) {
            return null;
        }
        String property = P + "security.pre-shared-key";
        byte[] key;
        try {
            key = Base64.getDecoder().decode(text.trim());
        } catch (IllegalArgumentException e) {
            throw new InvalidReliableUdpPropertyException(property, "[redacted]", "the key is not valid base64",
                    "set a base64 key of 32 random bytes, e.g. the output of: openssl rand -base64 32");
        }
        if (key.length != 32) {
            int n = key.length;
            Arrays.fill(key, (byte) 0);
            throw new InvalidReliableUdpPropertyException(property, "[redacted]", "the key is " + n + " bytes; it must be 32 bytes (256 bits)",
                    "set a base64 key of 32 random bytes, e.g. the output of: openssl rand -base64 32");
        }
        return key;
    }

    private static LinkConditionerConfig linkConditioner(ReliableUdpProperties.LinkConditioner l) {
        if (!l.enabled()) {
            return null;
        }
        return guard(() -> new LinkConditionerConfig(l.latency().toNanos() / 1e6, l.jitter().toNanos() / 1e6, l.loss(),
                l.burstEnter(), l.burstExit(), l.burstLoss(), l.duplicate(), l.reorder(), l.reorderDelay().toNanos() / 1e6,
                l.bandwidth().toBytes(), l.queueLimit().toBytes(), l.seed()));
    }

    private static int intBytes(String property, long bytes) {
        if (bytes < 0 || bytes > Integer.MAX_VALUE) {
            throw new InvalidReliableUdpPropertyException(property, bytes + "B", "must be within 0..2GB", "use a smaller size");
        }
        return (int) bytes;
    }

    private static <T> T guard(Supplier<T> build) {
        return guard(build, null);
    }

    private static <T> T guard(Supplier<T> build, @Nullable String prefix) {
        return guard(build, prefix, Map.of());
    }

    private static <T> T guard(Supplier<T> build, @Nullable String prefix, Map<String, String> fields) {
        try {
            return build.get();
        } catch (InvalidConfigurationException e) {
            String field = e.field();
            String property = prefix != null
                    ? prefix + CHANNEL_FIELDS.getOrDefault(field, kebab(field))
                    : fields.getOrDefault(field, FIELDS.getOrDefault(field, P + kebab(field)));
            boolean secret = property.endsWith("pre-shared-key") || property.endsWith("private-key");
            String value = secret ? "[redacted]" : e.value();
            InvalidReliableUdpPropertyException invalid = new InvalidReliableUdpPropertyException(property, value,
                    e.getMessage(), "choose a value that meets the rule: " + field + " " + e.rule());
            invalid.initCause(e);
            throw invalid;
        }
    }

    private static String kebab(String camel) {
        StringBuilder sb = new StringBuilder();
        for (char ch : camel.toCharArray()) {
            if (Character.isUpperCase(ch)) {
                sb.append('-').append(Character.toLowerCase(ch));
            } else {
                sb.append(ch);
            }
        }
        return sb.toString();
    }
}
