package io.reliableudp.connection;

import io.reliableudp.internal.X25519;
import io.reliableudp.message.MessageConfig;
import java.security.PrivateKey;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Fixed static keys for connection-layer tests: a server and a client, each allowing the other. */
final class Identities {

    static final PrivateKey SERVER = X25519.generate().getPrivate();
    static final PrivateKey CLIENT = X25519.generate().getPrivate();
    static final byte[] SERVER_KEY = X25519.publicKeyOf(SERVER);
    static final byte[] CLIENT_KEY = X25519.publicKeyOf(CLIENT);

    private Identities() {
    }

    /** Settings of a node with identity {@code me} that allows {@code allowed} (named "server" or "client"). */
    static ConnectionSettings settings(byte @Nullable [] psk, PrivateKey me, byte[] allowed) {
        String name = java.util.Arrays.equals(allowed, SERVER_KEY) ? "server" : "client";
        return new ConnectionSettings(0x1234_5678_9abc_def0L, psk, 0.1, 5, 5, 0.1,
                MessageConfig.builder().lowerLayerOverhead(Protocol.frameOverhead(true)).build(),
                ConnectionTestSupport.RECORDING, true, 0.1, Credentials.of(me, List.of(allowed), List.of(name)));
    }
}
