package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Test extension: fails a test during which a node's send future was told its end twice (the node's
 * count of calls that found the future already complete, {@code PeerLock.REPEATED_COMPLETIONS}, rose).
 * A {@code CompletableFuture} hides a second completion, so a test that only looks at the futures
 * cannot see it. Tests run one at a time in the fork, so the count's rise is the test's own.
 */
final class SendFuturesEndOnce implements BeforeEachCallback, AfterEachCallback {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(SendFuturesEndOnce.class);

    /** The count now (for tests that check a stretch of their own). */
    static long repeatedCompletions() {
        return PeerLock.REPEATED_COMPLETIONS.sum();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        context.getStore(NS).put("before", repeatedCompletions());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        long before = context.getStore(NS).get("before", Long.class);
        assertThat(repeatedCompletions() - before).as("send futures told their end a second time").isZero();
    }
}
