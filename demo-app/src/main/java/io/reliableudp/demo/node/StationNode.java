package io.reliableudp.demo.node;

import io.reliableudp.demo.node.DemoEvents.Frame;
import io.reliableudp.demo.node.DemoEvents.Position;
import io.reliableudp.demo.node.DemoEvents.StatusQuery;
import io.reliableudp.demo.node.DemoEvents.StatusReply;
import io.reliableudp.demo.node.DemoEvents.Telemetry;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.integration.ReliableUdp;
import java.util.zip.CRC32;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.dsl.IntegrationFlow;

/**
 * The station's application (one child context, one node, accepting the rovers): listeners for the
 * positions (reliable-ordered, checked for order), the camera frames (reliable-unordered, large,
 * checked by checksum) and the status queries (request/reply); the telemetry (unreliable-sequenced)
 * goes through a Spring Integration flow.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration(excludeName = NodeApplications.EXCLUDED)
@EnableIntegration   // Boot 4 auto-configures Integration only with spring-boot-integration; the demo needs just the core
public class StationNode {

    /** The station's listeners. */
    @Bean
    StationListeners stationListeners(Ledger ledger) {
        return new StationListeners(ledger);
    }

    /**
     * Telemetry through Spring Integration: the inbound adapter converts the payload, a filter drops
     * implausible readings, the handler books the sample.
     */
    @Bean
    IntegrationFlow telemetryFlow(ManagedReliableUdpNode node, Ledger ledger) {
        return IntegrationFlow.from(ReliableUdp.inboundAdapter(node).channels("telemetry").payloadType(Telemetry.class))
                .filter(Telemetry.class, t -> t.batteryVolts() > 0 && t.batteryVolts() < 20)
                .handle(Telemetry.class, (t, headers) -> {
                    ledger.stationGotTelemetry(t, System.nanoTime());
                    return null;
                })
                .get();
    }

    /** The listener methods (a bean of their own so the annotation processor finds them). */
    static final class StationListeners {

        private final Ledger ledger;

        StationListeners(Ledger ledger) {
            this.ledger = ledger;
        }

        /** Serial per (rover connection, channel): the ledger checks that seq counts up by one. */
        @UdpMessageListener(id = "positions", channels = "positions")
        void onPosition(Position p) {
            ledger.stationGotPosition(p, System.nanoTime());
        }

        @UdpMessageListener(id = "frames", channels = "frames")
        void onFrame(Frame f) {
            CRC32 crc = new CRC32();
            crc.update(f.pixels());
            ledger.stationGotFrame(f, crc.getValue() == f.checksum());
        }

        /** Request/reply: the answer goes back to the asking rover's {@code sendAndReceive}. */
        @UdpMessageListener(id = "status", channels = "requests")
        StatusReply onQuery(StatusQuery q) {
            Ledger.Epoch e = ledger.rover(q.rover()).epoch(q.epoch());
            return new StatusReply(e.positions.delivered.get(), e.frames.delivered.get());
        }
    }
}
