package io.reliableudp.demo.spring;

import io.reliableudp.demo.spring.DemoEvents.Ack;
import io.reliableudp.demo.spring.DemoEvents.Position;
import io.reliableudp.demo.spring.DemoEvents.Telemetry;
import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.context.annotation.Profile;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.stereotype.Component;

/** The station: receives positions (answering each with an ack) and telemetry. */
@Component
@Profile("station")
class Station {

    final AtomicLong positions = new AtomicLong();
    final AtomicLong outOfOrder = new AtomicLong();
    final AtomicLong telemetry = new AtomicLong();
    private long expected;

    @UdpMessageListener(id = "positions", channels = "positions")
    @SendTo("acks")
    Ack onPosition(Position position, @Header(ReliableUdpHeaders.PEER_ADDRESS) Object from) {
        // one listener thread at a time per (peer, channel): plain fields are safe here
        if (position.seq() != expected) {
            outOfOrder.incrementAndGet();
        }
        expected = position.seq() + 1;
        long n = positions.incrementAndGet();
        if (n % 20 == 1) {
            System.out.printf("  station <- Position #%d (%.1f, %.1f) from %s%n", position.seq(), position.x(), position.y(), from);
        }
        return new Ack(position.seq(), position.sentAtNanos());
    }

    @UdpMessageListener(id = "telemetry", channels = "telemetry")
    void onTelemetry(Telemetry t) {
        telemetry.incrementAndGet();
    }
}
