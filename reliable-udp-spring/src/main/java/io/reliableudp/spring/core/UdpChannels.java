package io.reliableudp.spring.core;

import io.reliableudp.spring.support.UdpChannel;
import io.reliableudp.message.ChannelConfig;
import io.reliableudp.transport.NodeConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The channels of the node by name and by index. Channels are referred to by name everywhere in the
 * Spring layer ({@code reliable-udp.channels.<name>}); an index written as text works too.
 */
public final class UdpChannels {

    private final List<UdpChannel> byIndex;

    /**
     * Builds the channel table of a node.
     *
     * @param config the node's settings (the channel count and modes come from here)
     * @param names channel names by index; indexes without a name are named by their number
     */
    public UdpChannels(NodeConfig config, Map<Integer, String> names) {
        List<ChannelConfig> channels = config.message().channels();
        List<UdpChannel> list = new ArrayList<>(channels.size());
        for (int i = 0; i < channels.size(); i++) {
            list.add(new UdpChannel(names.getOrDefault(i, Integer.toString(i)), i, channels.get(i).mode()));
        }
        this.byIndex = Collections.unmodifiableList(list);
    }

    /** Every channel, by index. */
    public List<UdpChannel> all() {
        return byIndex;
    }

    /**
     * The channel at an index.
     *
     * @param index the index
     * @return the channel, or null when out of range
     */
    public @Nullable UdpChannel get(int index) {
        return index >= 0 && index < byIndex.size() ? byIndex.get(index) : null;
    }

    /**
     * Looks a channel up by name, or by index written as text.
     *
     * @param nameOrIndex a configured name or an index
     * @return the channel
     * @throws IllegalArgumentException naming the known channels when there is no such channel
     */
    public UdpChannel resolve(String nameOrIndex) {
        for (UdpChannel c : byIndex) {
            if (c.name().equals(nameOrIndex)) {
                return c;
            }
        }
        try {
            UdpChannel c = get(Integer.parseInt(nameOrIndex.trim()));
            if (c != null) {
                return c;
            }
        } catch (NumberFormatException ignored) {
            // not an index: fall through to the error
        }
        throw new IllegalArgumentException("unknown channel '" + nameOrIndex + "'; the node's channels are "
                + byIndex.stream().map(c -> c.name() + "=" + c.index() + " (" + c.mode() + ")").toList());
    }

    /**
     * The name of a channel index.
     *
     * @param index the index
     * @return the configured name, or the index as text
     */
    public String name(int index) {
        UdpChannel c = get(index);
        return c == null ? Integer.toString(index) : c.name();
    }

    /** The first channel whose mode is not reliable, or null when every channel is reliable. */
    public @Nullable UdpChannel firstUnreliable() {
        for (UdpChannel c : byIndex) {
            if (!c.mode().isReliable()) {
                return c;
            }
        }
        return null;
    }
}
