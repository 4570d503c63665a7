package io.reliableudp.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;

import io.reliableudp.spring.test.ReliableUdpTestNetwork;
import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.transport.NodeConfig;
import io.reliableudp.transport.NodeIdentity;
import io.reliableudp.transport.PeerIdentity;
import io.reliableudp.transport.PeerKey;
import io.reliableudp.transport.ReliableUdpNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.FileSystemResource;
import org.springframework.core.io.Resource;

/** Identities and allow-lists from {@code reliable-udp.security.*}: inline, from files, errors, reloading. */
@Timeout(60)
class SecurityKeysTests {

    private final ReliableUdpTestNetwork network = new ReliableUdpTestNetwork();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ReliableUdpAutoConfiguration.class))
            .withBean(ReliableUdpNodeFactory.class, network::nodeFactory);

    @TempDir
    Path dir;

    @Test
    void inlineIdentityAndAllowList() {
        NodeIdentity self = NodeIdentity.generate();
        NodeIdentity billing = NodeIdentity.generate();
        String secret = self.privateKeyBase64();
        runner.withPropertyValues("reliable-udp.security.identity.private-key=" + secret,
                "reliable-udp.security.allowed-peers.billing.public-keys[0]=" + billing.publicKey().toBase64())
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    NodeConfig config = context.getBean(NodeConfig.class);
                    assertThat(config.encrypted()).isTrue();
                    assertThat(config.identity().publicKey()).isEqualTo(self.publicKey());
                    assertThat(config.allowedPeers()).containsExactly(new PeerIdentity("billing", billing.publicKey()));
                    assertThat(config.toString()).doesNotContain(secret);
                    assertThat(context.getBean(ReliableUdpProperties.class).toString()).doesNotContain(secret);
                });
    }

    @Test
    void keysFromFilesInEitherForm() throws Exception {
        KeyPair own = KeyPairGenerator.getInstance("X25519").generateKeyPair();
        Path privateKey = write("node.key", pem("PRIVATE KEY", own.getPrivate().getEncoded()));
        KeyPair next = KeyPairGenerator.getInstance("X25519").generateKeyPair();
        NodeIdentity current = NodeIdentity.generate();
        // a rotation in progress: the current key as Base64, the next one as PEM, in one file
        Path peers = write("billing.keys", "# billing, current then next\n" + current.publicKey().toBase64() + "\n\n"
                + pem("PUBLIC KEY", next.getPublic().getEncoded()));
        runner.withPropertyValues("reliable-udp.security.identity.private-key-location=file:" + privateKey,
                "reliable-udp.security.allowed-peers.billing.public-key-locations[0]=file:" + peers)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    NodeConfig config = context.getBean(NodeConfig.class);
                    assertThat(config.identity().publicKey()).isEqualTo(PeerKey.fromBase64(pem("PUBLIC KEY", own.getPublic().getEncoded())));
                    assertThat(config.allowedPeers()).extracting(PeerIdentity::name).containsExactly("billing", "billing");
                    assertThat(config.allowedPeers()).extracting(PeerIdentity::key)
                            .containsExactly(current.publicKey(), PeerKey.fromBase64(pem("PUBLIC KEY", next.getPublic().getEncoded())));
                });
    }

    @Test
    void aBadPrivateKeyNamesThePropertyAndIsNotEchoed() {
        FailureAnalysis analysis = assertFailure("reliable-udp.security.identity.private-key",
                "reliable-udp.security.identity.private-key=c2VjcmV0LWJ1dC10b28tc2hvcnQ=",
                "reliable-udp.security.allowed-peers.a.public-keys[0]=" + NodeIdentity.generate().publicKey().toBase64());
        assertThat(analysis.getDescription()).doesNotContain("c2VjcmV0LWJ1dC10b28tc2hvcnQ=").contains("[redacted]");
        assertThat(analysis.getAction()).contains("openssl genpkey -algorithm X25519");
    }

    @Test
    void anIdentityWithoutAllowedPeersIsRefused() {
        assertFailure("reliable-udp.security.allowed-peers",
                "reliable-udp.security.identity.private-key=" + NodeIdentity.generate().privateKeyBase64());
    }

    @Test
    void anAllowListWithoutAnIdentityIsRefused() {
        assertFailure("reliable-udp.security.identity.private-key",
                "reliable-udp.security.allowed-peers.a.public-keys[0]=" + NodeIdentity.generate().publicKey().toBase64());
    }

    @Test
    void anUnreadableKeyFileNamesTheProperty() {
        assertFailure("reliable-udp.security.allowed-peers.a.public-key-locations[0]",
                "reliable-udp.security.identity.private-key=" + NodeIdentity.generate().privateKeyBase64(),
                "reliable-udp.security.allowed-peers.a.public-key-locations[0]=file:" + dir.resolve("missing.keys"));
    }

    @Test
    void theReloaderAppliesRotatedFilesAndKeepsTheKeysInForceOnABadRead() throws Exception {
        NodeIdentity self = NodeIdentity.generate();
        NodeIdentity peerOld = NodeIdentity.generate();
        NodeIdentity peerNew = NodeIdentity.generate();
        Path own = write("node.key", self.privateKeyBase64());
        Path peers = write("peer.keys", peerOld.publicKey().toBase64());
        ReliableUdpProperties.Security security = new ReliableUdpProperties.Security(null,
                new ReliableUdpProperties.Identity(null, new FileSystemResource(own)),
                Map.of("peer", new ReliableUdpProperties.AllowedPeer(List.of(), List.<Resource>of(new FileSystemResource(peers)))),
                Duration.ofHours(1));
        ReliableUdpNode node = mock(ReliableUdpNode.class);
        SecurityKeyReloader reloader = new SecurityKeyReloader(node, security, mock(org.springframework.scheduling.TaskScheduler.class),
                SecurityKeys.load(security));

        assertThat(reloader.reload()).as("nothing changed").isFalse();
        verify(node, never()).allowedPeers(any());

        Files.writeString(peers, peerOld.publicKey().toBase64() + "\n" + peerNew.publicKey().toBase64());
        assertThat(reloader.reload()).isTrue();
        verify(node).allowedPeers(List.of(new PeerIdentity("peer", peerOld.publicKey()), new PeerIdentity("peer", peerNew.publicKey())));

        Files.writeString(peers, "half-written");
        assertThat(reloader.reload()).as("a bad file keeps the keys in force").isFalse();

        Files.writeString(peers, peerNew.publicKey().toBase64());
        assertThat(reloader.reload()).isTrue();
        verify(node).allowedPeers(List.of(new PeerIdentity("peer", peerNew.publicKey())));

        NodeIdentity rotated = NodeIdentity.generate();
        Files.writeString(own, rotated.privateKeyBase64());
        assertThat(reloader.reload()).isTrue();
        verify(node).identity(org.mockito.ArgumentMatchers.argThat(i -> i.publicKey().equals(rotated.publicKey())));
    }

    @Test
    void theReloaderRunsOnlyWhenKeysComeFromFilesAndAnIntervalIsSet() throws Exception {
        NodeIdentity self = NodeIdentity.generate();
        String peerKey = NodeIdentity.generate().publicKey().toBase64();
        Path peers = write("peer.keys", peerKey);
        runner.withPropertyValues("reliable-udp.security.identity.private-key=" + self.privateKeyBase64(),
                "reliable-udp.security.allowed-peers.a.public-key-locations[0]=file:" + peers,
                "reliable-udp.security.reload-interval=30s")
                .run(context -> assertThat(context.getBean(SecurityKeyReloader.class).isRunning()).isTrue());
        runner.withPropertyValues("reliable-udp.security.identity.private-key=" + self.privateKeyBase64(),
                "reliable-udp.security.allowed-peers.a.public-keys[0]=" + peerKey,
                "reliable-udp.security.reload-interval=30s")
                .run(context -> assertThat(context.getBean(SecurityKeyReloader.class).isRunning()).as("no key from a file").isFalse());
    }

    private Path write(String name, String text) throws Exception {
        return Files.writeString(dir.resolve(name), text);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private FailureAnalysis assertFailure(String property, String... properties) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        runner.withPropertyValues(properties).run(context -> {
            assertThat(context).hasFailed();
            analysis[0] = new ReliableUdpFailureAnalyzer().analyze(context.getStartupFailure());
        });
        assertThat(analysis[0]).as("failure analysis").isNotNull();
        assertThat(analysis[0].getDescription()).contains("Property: " + property);
        return analysis[0];
    }
}
