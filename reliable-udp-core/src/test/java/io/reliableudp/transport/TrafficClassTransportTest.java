package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.reliableudp.InvalidConfigurationException;
import io.reliableudp.TrafficClass;
import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.MessageConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The traffic class on its way to the port: a node's datagrams go by the port's own send (its
 * class, the node's) except the packets of a channel with a class of its own, which go with that
 * class's TOS byte; a socket ({@link SocketMarking}) is opened with the node's class and the option
 * set when a send asks for another. (On the wire: {@link DscpMarkingTest}.)
 */
@Timeout(60)
class TrafficClassTransportTest {

    /** One send as the port saw it: the TOS asked for (-1: the port's own) and the datagram's first byte. */
    private record Sent(int tos, byte type) {
    }

    private static final class MarkingPort extends ForwardingPort {
        final List<Sent> sent = new CopyOnWriteArrayList<>();

        MarkingPort(DatagramPort port) {
            super(port);
        }

        @Override
        public boolean send(ByteBuffer datagram, InetSocketAddress to) throws IOException {
            sent.add(new Sent(-1, datagram.get(datagram.position())));
            return port.send(datagram, to);
        }

        @Override
        public boolean send(ByteBuffer datagram, InetSocketAddress to, int tos) throws IOException {
            sent.add(new Sent(tos, datagram.get(datagram.position())));
            return port.send(datagram, to, tos);
        }
    }

    @ParameterizedTest(name = "encrypted {0}")
    @ValueSource(booleans = {false, true})
    void onlyTheOverridingChannelsDatagramsAskForAnotherClass(boolean encrypted) throws Exception {
        MessageConfig message = MessageConfig.builder().channels(List.of(
                ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED),
                ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED).trafficClass(TrafficClass.EF))).build();
        NodeConfig.Builder cfg = NodeConfig.builder().message(message).trafficClass(TrafficClass.CS6)
                .preSharedKey(encrypted ? new byte[32] : null);
        InMemoryNetwork network = new InMemoryNetwork();
        MarkingPort serverPort = new MarkingPort(network.open());
        MarkingPort clientPort = new MarkingPort(network.open());
        try (ReliableUdpNode server = ReliableUdpNode.start(cfg.build(), new RecordingListener(), serverPort);
             ReliableUdpNode client = ReliableUdpNode.start(cfg.acceptIncoming(false).build(), new RecordingListener(), clientPort)) {
            Peer peer = client.connect(serverPort.localAddress()).get(10, TimeUnit.SECONDS);
            CompletableFuture<?>[] sends = new CompletableFuture<?>[100];
            for (int i = 0; i < 50; i++) {
                sends[2 * i] = peer.send(0, new byte[] {(byte) i});
                sends[2 * i + 1] = peer.send(1, new byte[] {(byte) i});
            }
            CompletableFuture.allOf(sends).get(10, TimeUnit.SECONDS);
        }
        assertThat(clientPort.sent).filteredOn(s -> s.tos() != -1).isNotEmpty()
                .allSatisfy(s -> assertThat(s.tos()).isEqualTo(TrafficClass.EF.tos()));
        assertThat(clientPort.sent).filteredOn(s -> s.tos() == -1).as("handshake and channel 0: the port's own class")
                .extracting(Sent::type).contains((byte) 1, (byte) 3);
        assertThat(clientPort.sent).filteredOn(s -> s.type() == 1 || s.type() == 3)
                .allSatisfy(s -> assertThat(s.tos()).isEqualTo(-1));
        assertThat(serverPort.sent).as("the server sends acks, keepalives and the handshake: its own class").isNotEmpty()
                .allSatisfy(s -> assertThat(s.tos()).isEqualTo(-1));
    }

    @Test
    void aSocketIsOpenedWithTheNodesClassAndTheOptionIsSetWhenASendAsksForAnother() throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (DatagramChannel channel = DatagramChannel.open(); DatagramChannel peer = DatagramChannel.open()) {
            peer.bind(new InetSocketAddress(lo, 0));
            InetSocketAddress to = (InetSocketAddress) peer.getLocalAddress();
            SocketMarking marking = new SocketMarking(channel, TrafficClass.AF41.tos(), false);
            assertThat(channel.getOption(StandardSocketOptions.IP_TOS)).isEqualTo(TrafficClass.AF41.tos());
            marking.send(ByteBuffer.wrap(new byte[] {1}), to, TrafficClass.EF.tos());
            assertThat(channel.getOption(StandardSocketOptions.IP_TOS)).isEqualTo(TrafficClass.EF.tos());
            marking.send(ByteBuffer.wrap(new byte[] {2}), to);
            assertThat(channel.getOption(StandardSocketOptions.IP_TOS)).as("the socket's own class again")
                    .isEqualTo(TrafficClass.AF41.tos());
        }
        NodeConfig plain = NodeConfig.builder().build();
        assertThat(SocketMarking.channelClasses(plain)).isFalse();
        NodeConfig efChannel = plain.toBuilder().message(MessageConfig.builder().channels(List.of(
                ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED).trafficClass(TrafficClass.EF))).build()).build();
        assertThat(SocketMarking.channelClasses(efChannel)).isTrue();
        assertThat(SocketMarking.channelClasses(efChannel.toBuilder().trafficClass(TrafficClass.EF).build())).isFalse();
    }

    @Test
    void trafficClassesAreNamedOrNumberedAndABadOneIsRejectedNamingTheField() {
        assertThat(TrafficClass.valueOf("ef")).isEqualTo(TrafficClass.EF);
        assertThat(TrafficClass.valueOf(" AF41 ").dscp()).isEqualTo(34);
        assertThat(TrafficClass.valueOf("cs6").tos()).isEqualTo(0xC0);
        assertThat(TrafficClass.valueOf("default")).isEqualTo(TrafficClass.DEFAULT);
        assertThat(TrafficClass.valueOf("46")).isEqualTo(TrafficClass.EF);
        assertThat(TrafficClass.valueOf("LE").dscp()).isEqualTo(1);
        assertThat(TrafficClass.EF).hasToString("EF");
        assertThat(TrafficClass.DEFAULT).hasToString("CS0");
        assertThat(new TrafficClass(5)).hasToString("5");
        assertThatThrownBy(() -> new TrafficClass(64)).isInstanceOfSatisfying(InvalidConfigurationException.class,
                e -> assertThat(e.field()).isEqualTo("trafficClass")).hasMessageContaining("0..63");
        assertThatThrownBy(() -> TrafficClass.valueOf("-1")).isInstanceOf(InvalidConfigurationException.class);
        assertThatThrownBy(() -> TrafficClass.valueOf("EXPEDITED")).isInstanceOf(InvalidConfigurationException.class)
                .hasMessageContaining("trafficClass must be a DSCP name");
        assertThatThrownBy(() -> NodeConfig.builder().trafficClass(null).build())
                .isInstanceOfSatisfying(InvalidConfigurationException.class, e -> assertThat(e.field()).isEqualTo("trafficClass"));
        assertThat(NodeConfig.builder().build().trafficClass()).isEqualTo(TrafficClass.DEFAULT);
        assertThat(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED).trafficClass()).isEmpty();
        assertThat(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED).trafficClass(TrafficClass.EF).redundancy(2).trafficClass())
                .contains(TrafficClass.EF);
    }
}
