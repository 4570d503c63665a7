package io.reliableudp.connection;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.connection.HandshakeSchedule.Due;
import io.reliableudp.message.MessageConfig;
import org.junit.jupiter.api.Test;

/** {@link HandshakeSchedule} on its own: resends, a fresh challenge for an old cookie, the connect timeout (fake clock). */
class HandshakeScheduleTest {

    /** Connect timeout 12 s, resend every 0.25 s. */
    private static ConnectionSettings settings() {
        return new ConnectionSettings(1L, null, 1.0, 5, 12, 0.25,
                MessageConfig.builder().lowerLayerOverhead(Protocol.frameOverhead(false)).build(), ConnectionTestSupport.RECORDING);
    }

    @Test
    void resendsEveryIntervalAfterTheLastSend() {
        HandshakeSchedule s = new HandshakeSchedule(settings(), 0);
        s.sent(0);
        assertThat(s.due(0.2, false)).isEqualTo(Due.NOTHING);
        assertThat(s.due(0.25, false)).isEqualTo(Due.RESEND);
        s.sent(0.25);
        assertThat(s.due(0.4, false)).isEqualTo(Due.NOTHING);
    }

    @Test
    void aChallengeAnsweredForHalfTheCookieLifetimeAsksForAFreshOne() {
        HandshakeSchedule s = new HandshakeSchedule(settings(), 0);
        s.challenged(1);
        s.sent(1 + HandshakeSchedule.COOKIE_REFRESH_SECONDS - 0.1);
        assertThat(s.due(1 + HandshakeSchedule.COOKIE_REFRESH_SECONDS, false)).as("requesting: no cookie to age").isEqualTo(Due.NOTHING);
        assertThat(s.due(1 + HandshakeSchedule.COOKIE_REFRESH_SECONDS, true)).isEqualTo(Due.REFRESH);
        s.refreshed();
        assertThat(s.refreshes()).isEqualTo(1);
    }

    @Test
    void givesUpOnlyAfterMoreThanTheConnectTimeoutAndBeforeAnythingElse() {
        HandshakeSchedule s = new HandshakeSchedule(settings(), 2);
        s.challenged(2);
        assertThat(s.due(14, true)).isNotEqualTo(Due.GIVE_UP);
        assertThat(s.due(Math.nextUp(14.0), true)).isEqualTo(Due.GIVE_UP);
    }
}
