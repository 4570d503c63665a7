package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The peers' deadline heap against a plain model (a sorted set of (deadline, peer)) over random
 * schedule, re-schedule, clear and poll operations: the same earliest deadline after every step, due
 * peers polled in deadline order and each once, the peer's heap index always true.
 */
class PeerTimersTest {

    private static final class Timed extends PeerTimers.Entry {
        final int id;

        Timed(int id) {
            this.id = id;
        }
    }

    private record Key(long deadline, int id) implements Comparable<Key> {
        @Override
        public int compareTo(Key o) {
            int c = Long.compare(deadline, o.deadline);
            return c != 0 ? c : Integer.compare(id, o.id);
        }
    }

    @Property(tries = 300)
    void behavesLikeASortedSet(@ForAll @Size(max = 400) List<@IntRange(min = 0, max = 1_000_000) Integer> ops,
            @ForAll @IntRange(min = 1, max = 60) int peerCount) {
        PeerTimers<Timed> timers = new PeerTimers<>();
        List<Timed> peers = new ArrayList<>();
        for (int i = 0; i < peerCount; i++) {
            peers.add(new Timed(i));
        }
        TreeSet<Key> model = new TreeSet<>();
        long[] modelDeadline = new long[peerCount];
        java.util.Arrays.fill(modelDeadline, Long.MAX_VALUE);
        for (int op : ops) {
            Timed p = peers.get(op % peerCount);
            int kind = (op / peerCount) % 5;
            if (kind <= 2) { // schedule or move, with ties between peers
                long d = (op / 7) % 50;
                if (modelDeadline[p.id] != Long.MAX_VALUE) {
                    model.remove(new Key(modelDeadline[p.id], p.id));
                }
                model.add(new Key(d, p.id));
                modelDeadline[p.id] = d;
                timers.schedule(p, d);
            } else if (kind == 3) { // clear
                if (modelDeadline[p.id] != Long.MAX_VALUE) {
                    model.remove(new Key(modelDeadline[p.id], p.id));
                }
                modelDeadline[p.id] = Long.MAX_VALUE;
                timers.schedule(p, Long.MAX_VALUE);
            } else { // poll everything due at some time
                long now = (op / 11) % 50;
                Timed due;
                long last = Long.MIN_VALUE;
                while ((due = timers.pollDue(now)) != null) {
                    assertThat(due.deadlineNanos()).isLessThanOrEqualTo(now).isGreaterThanOrEqualTo(last);
                    last = due.deadlineNanos();
                    assertThat(model.remove(new Key(modelDeadline[due.id], due.id))).isTrue();
                    assertThat(modelDeadline[due.id]).isEqualTo(due.deadlineNanos());
                    modelDeadline[due.id] = Long.MAX_VALUE;
                    assertThat(due.timerIndex()).isEqualTo(-1);
                }
                assertThat(model.isEmpty() || model.first().deadline() > now).isTrue();
            }
            assertThat(timers.size()).isEqualTo(model.size());
            assertThat(timers.earliest()).isEqualTo(model.isEmpty() ? Long.MAX_VALUE : model.first().deadline());
            for (Timed t : peers) {
                assertThat(t.timerIndex() >= 0).isEqualTo(modelDeadline[t.id] != Long.MAX_VALUE);
            }
        }
    }
}
