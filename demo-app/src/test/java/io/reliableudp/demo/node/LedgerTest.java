package io.reliableudp.demo.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.demo.node.DemoEvents.Position;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.spring.core.ReliableUdpSendException;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The demo's verdict: what makes a run fail (reordered, acknowledged but undelivered) and what does not (a failure with a reason). */
class LedgerTest {

    private final Ledger ledger = new Ledger();

    private CompletableFuture<Object> send(int epoch, long seq) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        ledger.rover("rover-1").epoch(epoch).positionSent(seq, f, "rover-1");
        return f;
    }

    private void deliver(int epoch, long seq) {
        ledger.stationGotPosition(new Position("rover-1", epoch, seq, 0, 0, System.nanoTime()), System.nanoTime());
    }

    @Test
    void deliveredInOrderIsComplete() {
        for (int i = 0; i < 5; i++) {
            send(1, i).complete("ok");
            deliver(1, i);
        }
        Ledger.Totals t = ledger.rover("rover-1").totals();
        assertThat(t.inOrder()).isTrue();
        assertThat(t.complete()).isTrue();
        assertThat(t.positionsDelivered).isEqualTo(5);
    }

    @Test
    void aGapOrASwapIsReordered() {
        for (int i = 0; i < 3; i++) {
            send(1, i).complete("ok");
        }
        deliver(1, 0);
        deliver(1, 2);
        deliver(1, 1);
        Ledger.Totals t = ledger.rover("rover-1").totals();
        assertThat(t.outOfOrder).isEqualTo(2);
        assertThat(t.inOrder()).isFalse();
        assertThat(t.complete()).isFalse();
    }

    @Test
    void acknowledgedButNeverDeliveredIsLost() {
        send(1, 0).complete("ok");
        send(1, 1).complete("ok");
        deliver(1, 0);
        Ledger.Totals t = ledger.rover("rover-1").totals();
        assertThat(t.inOrder()).as("in transit is not out of order").isTrue();
        assertThat(t.positionsUndelivered).isEqualTo(1);
        assertThat(t.complete()).isFalse();
    }

    @Test
    void pendingIsNotComplete() {
        send(1, 0);
        assertThat(ledger.rover("rover-1").totals().complete()).isFalse();
    }

    @Test
    void aFailureWithAReasonIsAccountedForAndEpochsAreSeparate() {
        send(1, 0).complete("ok");
        deliver(1, 0);
        send(1, 1).completeExceptionally(new ReliableUdpSendException(DeliveryFailure.CLOSED, "station", "positions", null));
        // the restarted rover counts from 0 again
        send(2, 0).complete("ok");
        deliver(2, 0);
        Ledger.Totals t = ledger.rover("rover-1").totals();
        assertThat(t.complete()).isTrue();
        assertThat(t.positionsFailed).isEqualTo(1);
        assertThat(t.failures).containsEntry("position CLOSED", 1L);
    }

    @Test
    void percentilesCoverTheWindowOnly() {
        Ledger.Latencies l = new Ledger.Latencies();
        long now = 100_000_000_000L;
        l.record(now - Ledger.WINDOW_NANOS - 1, 999_000_000L);   // outside the window
        for (int i = 1; i <= 100; i++) {
            l.record(now, i * 1_000_000L);
        }
        assertThat(l.percentiles(now)).containsEntry("p50", 50.0).containsEntry("p99", 99.0).containsEntry("max", 100.0)
                .containsEntry("samples", 100.0);
    }
}
