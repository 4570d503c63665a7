package io.reliableudp.spring.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.transport.NodeIdentity;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.client.serviceregistry.Registration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The node's metadata in a Spring Cloud {@link Registration} other than Eureka's (Consul's, Zookeeper's
 * have a mutable metadata map): once the node has started on port 0, the registration carries the port
 * it bound and its public key; with {@code reliable-udp.discovery.register=false}, nothing.
 */
@Timeout(60)
class RegistrationMetadataTests {

    private ConfigurableApplicationContext app;

    @AfterEach
    void close() {
        if (app != null) {
            app.close();
        }
    }

    private ConfigurableApplicationContext start(String... extra) {
        NodeIdentity identity = NodeIdentity.generate();
        String[] base = { "eureka.client.enabled=false", "spring.cloud.kubernetes.enabled=false",
                "spring.cloud.discovery.client.simple.instances.orders[0].uri=http://127.0.0.1:8080",
                "reliable-udp.security.identity.private-key=" + identity.privateKeyBase64(),
                "reliable-udp.security.allowed-peers.orders.public-keys[0]=" + NodeIdentity.generate().publicKey().toBase64() };
        String[] all = new String[base.length + extra.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(extra, 0, all, base.length, extra.length);
        return ClientApp.start(RegisteringApp.class, all);
    }

    @Test
    void theRegistrationCarriesTheBoundPortAndThePublicKey() {
        app = start();
        ManagedReliableUdpNode node = app.getBean(ManagedReliableUdpNode.class);
        Map<String, String> metadata = app.getBean(Registration.class).getMetadata();
        assertThat(node.localAddress().getPort()).isPositive();
        assertThat(metadata).containsEntry("reliable-udp.port", Integer.toString(node.localAddress().getPort()))
                .containsEntry("reliable-udp.public-key", node.config().identity().publicKey().toBase64())
                .containsEntry("zone", "a");   // what the registry put there stays
        assertThat(app.getBean(ReliableUdpServiceRegistration.class).published()).isEqualTo(
                Map.of("reliable-udp.port", Integer.toString(node.localAddress().getPort()),
                        "reliable-udp.public-key", node.config().identity().publicKey().toBase64()));
    }

    @Test
    void registrationCanBeSwitchedOff() {
        app = start("reliable-udp.discovery.register=false");
        assertThat(app.getBeanNamesForType(ReliableUdpServiceRegistration.class)).isEmpty();
        assertThat(app.getBean(Registration.class).getMetadata()).containsOnlyKeys("zone");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class RegisteringApp {

        @Bean
        Registration registration() {
            return new FakeRegistration();
        }
    }

    /** A registration with a mutable metadata map, as Consul's and Zookeeper's are. */
    static final class FakeRegistration implements Registration {
        private final Map<String, String> metadata = new LinkedHashMap<>(Map.of("zone", "a"));

        @Override
        public String getServiceId() {
            return "orders-client";
        }

        @Override
        public String getHost() {
            return "127.0.0.1";
        }

        @Override
        public int getPort() {
            return 8080;
        }

        @Override
        public boolean isSecure() {
            return false;
        }

        @Override
        public URI getUri() {
            return URI.create("http://127.0.0.1:8080");
        }

        @Override
        public Map<String, String> getMetadata() {
            return metadata;
        }
    }
}
