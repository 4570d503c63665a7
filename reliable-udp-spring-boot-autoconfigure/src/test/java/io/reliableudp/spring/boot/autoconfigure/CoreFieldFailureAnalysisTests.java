package io.reliableudp.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.InvalidConfigurationException;
import io.reliableudp.spring.core.ReliableUdpNodeFactory;
import io.reliableudp.spring.test.ReliableUdpTestNetwork;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A value the core's configuration rejects is reported under the property it came from, found from the
 * core exception's {@link InvalidConfigurationException#field()} (not from its message), with the value
 * and the core's sentence.
 */
class CoreFieldFailureAnalysisTests {

    private final ReliableUdpTestNetwork network = new ReliableUdpTestNetwork();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ReliableUdpAutoConfiguration.class))
            .withBean(ReliableUdpNodeFactory.class, network::nodeFactory);

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', textBlock = """
            reliable-udp.max-connections                | 0      | 0       | maxConnections must be within 1..65536, was 0
            reliable-udp.send-rate                      | 0      | 0.0     | sendRateHz must be within 1..10000, was 0.0
            reliable-udp.keep-alive-interval            | 0s     | PT0S    | keepAliveInterval must be > 0, was PT0S
            reliable-udp.timeout                        | 1500ms | PT1.5S  | timeout (PT1.5S) must be at least twice keepAliveInterval (PT1S)
            reliable-udp.connect-timeout                | -1s    | PT-1S   | connectTimeout must be > 0, was PT-1S
            reliable-udp.send-queue-wait                | -1ms   | PT-0.001S | sendQueueWait must be >= 0, was PT-0.001S
            reliable-udp.receive-busy-poll              | 5ms    | PT0.005S | receiveBusyPoll must be within 0..1ms, was PT0.005S
            reliable-udp.io-threads                     | 0      | 0       | ioThreads must be within 1..64, was 0
            reliable-udp.dedicated-sockets              | -1     | -1      | dedicatedSockets must be within 0..65536, was -1
            reliable-udp.message.datagram-budget        | 100    | 100     | datagramBudget must be within 256..65507 bytes, was 100
            reliable-udp.message.resend-rtt-factor      | 20     | 20.0    | resendRttFactor must be within 0.5..10, was 20.0
            reliable-udp.message.max-resend-interval    | 2m     | 120.0   | maxResendIntervalSeconds must be within (0, 60], was 120.0
            reliable-udp.message.slice-size             | 10     | 10      | sliceSize must be within 64..1024 bytes, was 10
            reliable-udp.message.max-message-size       | 0B     | 0       | maxMessageSize must be >= 1, was 0
            reliable-udp.message.receive-memory-limit   | 1KB    | 1024    | receiveMemoryLimit must be >= maxMessageSize (1048576), was 1024
            reliable-udp.receive-memory-limit           | 1KB    | 1024    | receiveMemoryLimit must be >= message.maxMessageSize (1048576), was 1024
            reliable-udp.link-conditioner.loss          | 1.5    | 1.5     | lossProbability must be within 0..1, was 1.5
            reliable-udp.link-conditioner.latency       | -5ms   | -5.0    | latencyMillis must be a finite number >= 0, was -5.0
            reliable-udp.link-conditioner.queue-limit   | 0B     | 0       | queueLimitBytes must be >= 1, was 0
            """)
    void theCoreFieldIsReportedAsItsProperty(String property, String setting, String value, String reason) {
        FailureAnalysis analysis = analyze(property + "=" + setting, "reliable-udp.link-conditioner.enabled=true");
        assertThat(analysis.getDescription())
                .contains("Property: " + property + "\n")
                .contains("Value:    \"" + value + "\"")
                .contains(reason);
        assertThat(analysis.getAction()).startsWith("Update " + property + ": choose a value that meets the rule: ");
    }

    @ParameterizedTest(name = "channel {0}={1}")
    @CsvSource(delimiter = '|', textBlock = """
            max-queued-messages | 0  | 0
            max-queued-bytes    | 0B | 0
            ttl                 | -5ms | PT-0.005S
            """)
    void aChannelFieldIsReportedUnderItsChannel(String property, String setting, String value) {
        FailureAnalysis analysis = analyze("reliable-udp.channels.events.index=0",
                "reliable-udp.channels.events." + property + "=" + setting);
        assertThat(analysis.getDescription())
                .contains("Property: reliable-udp.channels.events." + property + "\n")
                .contains("Value:    \"" + value + "\"");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', textBlock = """
            reliable-udp.traffic-class                 | 64        | must be a DSCP within 0..63
            reliable-udp.traffic-class                 | expedited | must be a DSCP name (EF, AF41, CS6, ...) or a number within 0..63
            reliable-udp.channels.events.traffic-class | -1        | must be a DSCP name (EF, AF41, CS6, ...) or a number within 0..63
            """)
    void aBadTrafficClassIsReportedUnderItsProperty(String property, String setting, String reason) {
        FailureAnalysis analysis = analyze("reliable-udp.channels.events.index=0", property + "=" + setting);
        assertThat(analysis.getDescription())
                .contains("Property: " + property + "\n")
                .contains("Value:    \"" + setting + "\"")
                .contains(reason);
        assertThat(analysis.getAction()).contains("DSCP name");
    }

    private FailureAnalysis analyze(String... properties) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        runner.withPropertyValues(properties).run(context -> {
            assertThat(context).hasFailed();
            analysis[0] = new ReliableUdpFailureAnalyzer().analyze(context.getStartupFailure());
        });
        assertThat(analysis[0]).as("failure analysis").isNotNull();
        return analysis[0];
    }
}
