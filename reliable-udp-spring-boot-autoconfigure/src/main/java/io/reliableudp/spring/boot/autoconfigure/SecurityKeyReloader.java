package io.reliableudp.spring.boot.autoconfigure;

import io.reliableudp.transport.NodeIdentity;
import io.reliableudp.transport.ReliableUdpNode;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;

/**
 * Reads the key files of {@code reliable-udp.security.*} again every
 * {@code reliable-udp.security.reload-interval} and hands what changed to the node
 * ({@link ReliableUdpNode#identity(NodeIdentity)}, {@link ReliableUdpNode#allowedPeers}), so a
 * rotated key (a renewed Kubernetes secret, a file replaced by a deployment tool) takes effect for new
 * handshakes without a restart. Connections already made keep their session keys.
 *
 * <p>A file that cannot be read or parsed keeps the keys in force and is logged at WARN once per
 * distinct error (the next good read logs at INFO), so a half-written file never locks peers out and
 * never floods the log.
 */
final class SecurityKeyReloader implements SmartLifecycle {

    private static final Log logger = LogFactory.getLog(SecurityKeyReloader.class);

    private final ReliableUdpNode node;
    private final ReliableUdpProperties.Security security;
    private final @Nullable TaskScheduler scheduler;
    private final Duration interval;
    private SecurityKeys current;
    private @Nullable String lastError;
    private @Nullable ScheduledFuture<?> task;

    SecurityKeyReloader(ReliableUdpNode node, ReliableUdpProperties.Security security, @Nullable TaskScheduler scheduler,
            SecurityKeys initial) {
        this.node = node;
        this.security = security;
        this.scheduler = scheduler;
        this.interval = security.reloadInterval();
        this.current = initial;
    }

    /** Reads the keys again and applies what changed; returns whether anything was applied. */
    synchronized boolean reload() {
        SecurityKeys read;
        try {
            read = SecurityKeys.load(security);
        } catch (InvalidReliableUdpPropertyException e) {
            if (!Objects.equals(lastError, e.getMessage())) {
                lastError = e.getMessage();
                logger.warn("reliable-udp keys not reloaded, the keys in force stay: " + e.getMessage());
            }
            return false;
        }
        if (lastError != null) {
            lastError = null;
            logger.info("reliable-udp key files readable again");
        }
        boolean changed = false;
        if (read.identity() != null && !read.identity().publicKey().equals(identityKey(current))) {
            node.identity(read.identity());
            logger.info("reliable-udp node identity replaced for new handshakes; public key now " + read.identity().publicKey());
            changed = true;
        }
        if (!read.allowedPeers().equals(current.allowedPeers()) && !read.allowedPeers().isEmpty()) {
            node.allowedPeers(read.allowedPeers());
            logger.info("reliable-udp allow-list replaced for new handshakes: " + read.allowedPeers().size() + " keys of "
                    + read.allowedPeers().stream().map(p -> p.name()).distinct().toList());
            changed = true;
        }
        current = read;
        return changed;
    }

    private static @Nullable Object identityKey(SecurityKeys keys) {
        return keys.identity() == null ? null : keys.identity().publicKey();
    }

    @Override
    public synchronized void start() {
        if (task == null && scheduler != null && interval.isPositive() && security.identity().isSet()
                && SecurityKeys.hasLocations(security)) {
            task = scheduler.scheduleWithFixedDelay(this::reloadSafely, interval);
        }
    }

    private void reloadSafely() {
        try {
            reload();
        } catch (RuntimeException e) {
            // the node refused the keys (closed, or a mode it cannot change to): keep running, say why
            logger.warn("reliable-udp keys not applied: " + e);
        }
    }

    @Override
    public synchronized void stop() {
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return task != null;
    }

    @Override
    public int getPhase() {
        // after the node has started (its phase is lower), before it stops
        return Integer.MAX_VALUE - 2048;
    }
}
