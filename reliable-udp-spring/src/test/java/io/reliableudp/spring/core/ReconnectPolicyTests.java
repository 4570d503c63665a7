package io.reliableudp.spring.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.util.backoff.BackOffExecution;

/** Reconnect backoff: grows by the multiplier up to the cap, and peers draw different waits (jitter). */
class ReconnectPolicyTests {

    private final ReconnectPolicy policy = new ReconnectPolicy(Duration.ofMillis(200), Duration.ofSeconds(10), 2.0);

    @Test
    void peersThatFailedTogetherDoNotRetryInLockstep() {
        Set<Long> firstWaits = new HashSet<>();
        for (int peer = 0; peer < 50; peer++) {
            long first = policy.start().nextBackOff();
            assertThat(first).isBetween(100L, 300L);
            firstWaits.add(first);
        }
        // without jitter every peer would wait exactly 200 ms
        assertThat(firstWaits).hasSizeGreaterThan(10);
    }

    @Test
    void waitsGrowAndStayUnderTheCapForever() {
        BackOffExecution e = policy.start();
        long previousMiddle = 0;
        for (int attempt = 1; attempt <= 40; attempt++) {
            long wait = e.nextBackOff();
            assertThat(wait).as("attempt %d", attempt).isNotEqualTo(BackOffExecution.STOP).isPositive().isLessThanOrEqualTo(10_000);
            long middle = policy.backoff(attempt).toMillis();
            assertThat(middle).isGreaterThanOrEqualTo(previousMiddle);
            previousMiddle = middle;
        }
        assertThat(policy.backoff(40)).isEqualTo(Duration.ofSeconds(10));
    }
}
