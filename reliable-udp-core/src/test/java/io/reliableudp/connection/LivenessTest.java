package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.message.MessageConfig;
import org.junit.jupiter.api.Test;

/**
 * {@link Liveness} on its own: when keepalives, probes, the timeout and a server's unconfirmed deadline
 * are due, given the times of the last frames heard and sent (fake clock; no connection, no frames).
 */
class LivenessTest {

    /** Keepalive 1 s, timeout 5 s, connect timeout 5 s, resend 0.25 s; probes after 1.5 s, every 0.25 s. */
    private static ConnectionSettings settings() {
        return new ConnectionSettings(1L, null, 1.0, 5, 5, 0.25,
                MessageConfig.builder().lowerLayerOverhead(Protocol.frameOverhead(false)).build(), ConnectionTestSupport.RECORDING);
    }

    @Test
    void aServerLeadsTheKeepalivesAndAClientFollowsAfterAQuarterMore() {
        Liveness server = new Liveness(false, settings(), 0);
        Liveness client = new Liveness(true, settings(), 0);
        assertThat(server.keepaliveDue(0.999, 0)).isFalse();
        assertThat(server.keepaliveDue(1.0, 0)).isTrue();
        assertThat(client.keepaliveDue(1.0, 0)).isFalse();
        assertThat(client.keepaliveDue(Liveness.CLIENT_KEEPALIVE_FACTOR, 0)).isTrue();
    }

    @Test
    void onlyAClientSilentForHalfAnIntervalAnswersAKeepaliveAndTheAnswerIsCounted() {
        Liveness client = new Liveness(true, settings(), 0);
        assertThat(client.answersKeepalive(1.0, 0.6)).as("sent 0.4 s ago").isFalse();
        assertThat(client.answersKeepalive(1.0, 0.5)).as("sent 0.5 s ago").isTrue();
        assertThat(client.keepalivesAnswered()).isEqualTo(1);
        Liveness server = new Liveness(false, settings(), 0);
        assertThat(server.answersKeepalive(10, 0)).as("a server never answers: no ping-pong").isFalse();
        assertThat(server.keepalivesAnswered()).isZero();
    }

    @Test
    void probesFollowSilenceAndRepeatAtTheirIntervalUntilThePeerIsHeard() {
        Liveness l = new Liveness(false, settings(), 0);
        assertThat(l.nextProbe()).isEqualTo(1.5);
        assertThat(l.probeDue(1.49)).isFalse();
        assertThat(l.probeDue(1.5)).isTrue();
        l.probeSent(1.5);
        assertThat(l.nextProbe()).isEqualTo(1.75);
        l.frameHeard(1.6);
        assertThat(l.nextProbe()).as("hearing the peer moves it later").isEqualTo(3.1);
        assertThat(l.probesSent()).isEqualTo(1);
    }

    @Test
    void theTimeoutIsStrictlyAfterTimeoutSecondsOfSilenceAndHousekeepingComesThen() {
        Liveness l = new Liveness(true, settings(), 0);
        l.sessionUpdated(4.5);
        l.probeSent(4.9);
        assertThat(l.timedOut(5.0)).isFalse();
        assertThat(l.timedOut(Math.nextUp(5.0))).isTrue();
        assertThat(l.nextHousekeeping(4.9)).isEqualTo(Math.nextUp(5.0));
    }

    @Test
    void anUnconfirmedServerConnectionEndsAtItsDeadlineUnlessAFrameConfirmsIt() {
        ConnectionSettings s = settings();
        double deadline = Liveness.unconfirmedDeadline(s, 0, 0);
        assertThat(deadline).isEqualTo(5.0); // the client's 5 s connect timeout from the cookie, within the 5 s timeout
        Liveness l = new Liveness(false, s, 0);
        l.unconfirmedUntil(deadline);
        l.heard(4);
        assertThat(l.unconfirmedExpired(5.5)).as("heard, but no frame").isTrue();
        l.frameHeard(5.2);
        assertThat(l.unconfirmedExpired(5.5)).isFalse();
        assertThat(l.confirmed()).isTrue();
        Liveness c = new Liveness(true, s, 0);
        c.unconfirmedUntil(1);
        assertThat(c.unconfirmedExpired(100)).as("never a client").isFalse();
    }

    @Test
    void aRepeatedResponseGivesAnUnconfirmedConnectionAtLeastTheUnconfirmedTimeoutMore() {
        ConnectionSettings s = settings();
        Liveness l = new Liveness(false, s, 0);
        l.unconfirmedUntil(1);
        l.repeatedResponse(3, Liveness.unconfirmedTimeout(s));
        assertThat(l.unconfirmedExpired(6.9)).isFalse();
        assertThat(l.unconfirmedExpired(7.1)).isTrue();
        assertThat(l.timedOut(8)).isFalse();
    }
}
