package io.reliableudp.bench.packet;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import io.reliableudp.packet.PacketCounter;
import io.reliableudp.packet.ReliableConfig;
import io.reliableudp.packet.ReliableEndpoint;

/**
 * The packet layer alone, in memory: endpoint A sends a packet to B and B one to A, each delivered at
 * once to the other endpoint's {@code receivePacket} (header decode, window checks, processing, ack
 * walk). One operation is that packet pair, so acks flow both ways on every packet, as the reference
 * C library's figure (about 210 ns per pair for 100 B, 450-600 ns for 4000 B = 4 fragments).
 * {@code update} runs every 64 pairs (it scans the 512-entry RTT history), acks are cleared every pair.
 * {@link #baselineCopy} is the floor: the two payload copies alone.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar PacketExchangeBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms256m", "-Xmx256m"})
public class PacketExchangeBenchmark {

    @Param({"100", "4000"})
    public int payloadSize;

    private ReliableEndpoint a;
    private ReliableEndpoint b;
    private byte[] payload;
    private byte[] scratch;
    private double time;
    private int operations;
    private long checksum;

    @Setup(Level.Trial)
    public void setUp() {
        ReliableConfig config = ReliableConfig.defaults();
        time = 100.0;
        ReliableEndpoint[] pair = new ReliableEndpoint[2];
        // the transmitters deliver straight into the peer: the buffer is valid during the call
        pair[0] = new ReliableEndpoint(config, time, (seq, data, offset, length) -> pair[1].receivePacket(data, offset, length),
                this::process);
        pair[1] = new ReliableEndpoint(config, time, (seq, data, offset, length) -> pair[0].receivePacket(data, offset, length),
                this::process);
        a = pair[0];
        b = pair[1];
        payload = new byte[payloadSize];
        for (int i = 0; i < payloadSize; i++) {
            payload[i] = (byte) (i * 7);
        }
        scratch = new byte[payloadSize + 64];
        // fill the windows and the reassembly slots before measuring
        for (int i = 0; i < 2000; i++) {
            exchange();
        }
    }

    private boolean process(int sequence, byte[] data, int offset, int length) {
        checksum += data[offset + length - 1] + sequence;
        return true;
    }

    /**
     * One packet pair: A to B, then B to A, both acked by the next headers.
     *
     * @return a checksum of what was processed (keeps the work observable)
     */
    @Benchmark
    public long exchange() {
        if ((++operations & 63) == 0) {
            time += 0.001;
            a.update(time);
            b.update(time);
        }
        a.sendPacket(payload, 0, payload.length);
        b.sendPacket(payload, 0, payload.length);
        a.clearAcks();
        b.clearAcks();
        return checksum;
    }

    /**
     * The floor: copying the payload twice (what any packet layer must do at least once per send).
     *
     * @return a byte of the copy
     */
    @Benchmark
    public byte baselineCopy() {
        System.arraycopy(payload, 0, scratch, 9, payload.length);
        System.arraycopy(scratch, 9, scratch, 0, payload.length);
        return scratch[payload.length - 1];
    }

    /**
     * Number of packets acked so far by A (for a sanity check when run from a main).
     *
     * @return the counter
     */
    public long ackedByA() {
        return a.counter(PacketCounter.NUM_PACKETS_ACKED);
    }
}
