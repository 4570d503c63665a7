package io.reliableudp.spring.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpSendException;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import io.reliableudp.spring.test.ReliableUdpTestNetwork;
import io.reliableudp.transport.NodeIdentity;
import io.reliableudp.transport.Peer;
import io.reliableudp.transport.PeerIdentity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.Header;

/**
 * Two applications that know each other by their keys (reliable-udp.security.identity and
 * allowed-peers): the listener sees the name of the key the sender proved, meters and the directory
 * call the peer by it, and a client whose key is not on the server's allow-list is refused.
 */
@Timeout(60)
class IdentityMessagingTests {

    private final ReliableUdpTestNetwork network = new ReliableUdpTestNetwork();
    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    private final NodeIdentity station = NodeIdentity.generate();
    private final NodeIdentity rover = NodeIdentity.generate();
    private final NodeIdentity stranger = NodeIdentity.generate();

    @AfterEach
    void close() {
        contexts.forEach(ConfigurableApplicationContext::close);
    }

    @Test
    void theListenerSeesTheVerifiedIdentityOfTheSender() throws Exception {
        ConfigurableApplicationContext server = startStation();
        ConfigurableApplicationContext client = startRover(rover, server);
        ReliableUdpTemplate template = client.getBean(ReliableUdpTemplate.class);
        assertThat(template.send("station", "events", "hello").get(10, TimeUnit.SECONDS).acknowledged()).isTrue();

        Inbox inbox = server.getBean(Inbox.class);
        await().atMost(Duration.ofSeconds(10)).until(() -> !inbox.identities.isEmpty());
        assertThat(inbox.identities).containsExactly("rover-1");
        assertThat(inbox.keys).containsExactly(rover.publicKey().toBase64());

        ManagedReliableUdpNode serverNode = server.getBean(ManagedReliableUdpNode.class);
        Peer fromRover = serverNode.peers().iterator().next();
        assertThat(fromRover.identity()).isEqualTo(new PeerIdentity("rover-1", rover.publicKey()));
        // the server has no configured name for the rover: meters and health call it by its allow-list name
        assertThat(serverNode.peerDirectory().tagName(fromRover)).isEqualTo("rover-1");

        ManagedReliableUdpNode clientNode = client.getBean(ManagedReliableUdpNode.class);
        assertThat(clientNode.peers().iterator().next().identity()).isEqualTo(new PeerIdentity("station", station.publicKey()));
    }

    @Test
    void aClientWhoseKeyIsNotAllowedIsRefused() throws Exception {
        ConfigurableApplicationContext server = startStation();
        ConfigurableApplicationContext client = startRover(stranger, server);
        ReliableUdpTemplate template = client.getBean(ReliableUdpTemplate.class);
        assertThat(template.send("station", "events", "let me in")).failsWithin(Duration.ofSeconds(10))
                .withThrowableThat().havingCause().isInstanceOfSatisfying(ReliableUdpSendException.class,
                        e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.NOT_CONNECTED));
        assertThat(server.getBean(ManagedReliableUdpNode.class).peers()).isEmpty();
        assertThat(server.getBean(Inbox.class).identities).isEmpty();
    }

    private ConfigurableApplicationContext startStation() {
        return start(StationApp.class, "reliable-udp.port=0",
                "reliable-udp.security.identity.private-key=" + station.privateKeyBase64(),
                "reliable-udp.security.allowed-peers.rover-1.public-keys[0]=" + rover.publicKey().toBase64());
    }

    private ConfigurableApplicationContext startRover(NodeIdentity own, ConfigurableApplicationContext server) {
        int port = server.getBean(ManagedReliableUdpNode.class).localAddress().getPort();
        return start(RoverApp.class, "reliable-udp.peers.station.address=127.0.0.1:" + port,
                "reliable-udp.reconnect.initial-backoff=10s",
                "reliable-udp.security.identity.private-key=" + own.privateKeyBase64(),
                "reliable-udp.security.allowed-peers.station.public-keys[0]=" + station.publicKey().toBase64());
    }

    private ConfigurableApplicationContext start(Class<?> app, String... properties) {
        List<String> all = new ArrayList<>(List.of("reliable-udp.bind-address=127.0.0.1", "reliable-udp.connect-timeout=2s",
                "reliable-udp.channels.events.index=0", "reliable-udp.channels.events.delivery-mode=reliable-ordered",
                "spring.main.banner-mode=off"));
        all.addAll(List.of(properties));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(app).web(WebApplicationType.NONE)
                .initializers(c -> c.getBeanFactory().registerSingleton("reliableUdpNodeFactory", network.nodeFactory()))
                .properties(all.toArray(String[]::new)).run();
        contexts.add(context);
        return context;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class StationApp {

        @Bean
        Inbox inbox() {
            return new Inbox();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class RoverApp {
    }

    static class Inbox {
        final List<String> identities = new CopyOnWriteArrayList<>();
        final List<String> keys = new CopyOnWriteArrayList<>();

        @UdpMessageListener(id = "events", channels = "events")
        void on(String body, @Header(name = ReliableUdpHeaders.PEER_IDENTITY, required = false) @Nullable String identity,
                @Header(name = ReliableUdpHeaders.PEER_KEY, required = false) @Nullable String key) {
            identities.add(String.valueOf(identity));
            keys.add(String.valueOf(key));
        }
    }
}
