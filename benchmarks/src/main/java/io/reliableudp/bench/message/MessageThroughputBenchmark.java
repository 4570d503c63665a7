package io.reliableudp.bench.message;

import io.reliableudp.message.ChannelConfig;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.message.MessageEndpoint;
import io.reliableudp.packet.ReliableConfig;
import io.reliableudp.packet.ReliableEndpoint;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * In-memory throughput of the message layer: two {@link MessageEndpoint}s over real packet-layer
 * endpoints, no sockets, 32-byte reliable-ordered messages from A to B, acks flowing back. One
 * operation = one message sent, delivered to B's listener and acknowledged back to A.
 *
 * <p>Baseline in the same run: {@code packetLayerOnly} pushes the same bytes through two bare
 * {@link ReliableEndpoint}s in full packets (one operation = 32 payload bytes' share of a packet),
 * the floor the message layer sits on.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar MessageThroughputBenchmark -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class MessageThroughputBenchmark {

    static final int BATCH = 1024;
    static final int MESSAGE_SIZE = 32;

    /** Datagrams in flight in one direction: a preallocated ring of copies (no allocation). */
    static final class Wire {
        final byte[][] slots = new byte[256][2048];
        final int[] lengths = new int[256];
        int head;
        int tail;

        void put(byte[] data, int offset, int length) {
            int i = head++ & 255;
            System.arraycopy(data, offset, slots[i], 0, length);
            lengths[i] = length;
            if (head - tail > 256) {
                throw new IllegalStateException("wire overflow");
            }
        }

        void deliverTo(MessageEndpoint e) {
            while (tail != head) {
                int i = tail++ & 255;
                e.receive(slots[i], 0, lengths[i]);
            }
        }

        void deliverTo(ReliableEndpoint e) {
            while (tail != head) {
                int i = tail++ & 255;
                e.receivePacket(slots[i], 0, lengths[i]);
            }
        }
    }

    MessageEndpoint a;
    MessageEndpoint b;
    final Wire ab = new Wire();
    final Wire ba = new Wire();
    final byte[] payload = new byte[MESSAGE_SIZE];
    long delivered;
    long deliveredBytes;
    double time;
    int rounds;

    ReliableEndpoint pa;
    ReliableEndpoint pb;
    byte[] packet;
    int messagesPerPacket;

    @Setup(Level.Trial)
    public void setup() {
        MessageConfig config = MessageConfig.builder()
                .channels(List.of(ChannelConfig.of(DeliveryMode.RELIABLE_ORDERED)))
                .build();
        a = new MessageEndpoint(config, 0, ab::put, (c, id, d, o, l) -> { });
        b = new MessageEndpoint(config, 0, ba::put, (c, id, d, o, l) -> {
            delivered++;
            deliveredBytes += l;
        });
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) i;
        }
        // baseline: full packets of the same budget through bare packet-layer endpoints
        ReliableConfig rc = ReliableConfig.builder().fragmentAbove(a.packetPayloadBudget()).allowEmptyPayload(true).build();
        pa = new ReliableEndpoint(rc, 0, (s, d, o, l) -> ab.put(d, o, l), (s, d, o, l) -> true);
        pb = new ReliableEndpoint(rc, 0, (s, d, o, l) -> ba.put(d, o, l), (s, d, o, l) -> {
            deliveredBytes += l;
            return true;
        });
        messagesPerPacket = (a.packetPayloadBudget() - 3) / (MESSAGE_SIZE + 1);
        packet = new byte[messagesPerPacket * MESSAGE_SIZE];
    }

    /** Sends BATCH messages A to B, delivers them, and brings the acks back. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long messageLayer() {
        time += 0.0001;
        for (int i = 0; i < BATCH; i++) {
            if (a.offer(0, payload) < 0) {
                throw new IllegalStateException("queue full: acks are not flowing");
            }
        }
        a.flush(time);
        ab.deliverTo(b);
        b.flush(time);
        ba.deliverTo(a);
        if ((++rounds & 63) == 0) {
            a.update(time);
            b.update(time);
        }
        return delivered;
    }

    /** The same payload bytes through the packet layer alone, in full packets. */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long packetLayerOnly() {
        time += 0.0001;
        int packets = (BATCH + messagesPerPacket - 1) / messagesPerPacket;
        for (int p = 0; p < packets; p++) {
            pa.sendPacket(packet, 0, packet.length);
            if ((p & 15) == 15) {
                ab.deliverTo(pb);
                pb.sendPacket(packet, 0, 0);
                ba.deliverTo(pa);
            }
        }
        ab.deliverTo(pb);
        pb.sendPacket(packet, 0, 0);
        ba.deliverTo(pa);
        return deliveredBytes;
    }
}
