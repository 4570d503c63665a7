package io.reliableudp.bench.systems;

import io.reliableudp.bench.kit.ChildProcess;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * A baseline that runs in a child JVM ({@code AeronPeer} on JDK 17, {@link KcpPeer} with Netty 4.1),
 * driven over the child's stdin and stdout: {@code throughput SIZE CONNECTIONS RELIABLE SECONDS} and
 * {@code pingpong SIZE SECONDS}, each answered by one {@code RESULT ...} line (rate, sent, delivered,
 * complete; or a compressed HdrHistogram; or {@code error MESSAGE}), every answer with the child's
 * process CPU. The child starts on the first request and stays for the next ones (its JIT stays warm);
 * a child that does not answer in time is killed and started again on the next request. Several
 * systems may share one child ({@link #throughput}, {@link #pingPong}).
 */
public final class PeerProcess implements AutoCloseable {

    private static final Pattern THROUGHPUT = Pattern.compile(
            "throughput rate=([0-9.eE+-]+) sent=(\\d+) delivered=(\\d+) complete=(true|false) cpu=([0-9.]+)");
    private static final Pattern PINGPONG = Pattern.compile("pingpong count=(\\d+) histogram=(\\S+) cpu=([0-9.]+)");
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    private final String name;
    private final List<String> command;
    private final Path logDir;
    private ChildProcess child;
    private int started;
    private double lastCpu = Double.NaN;

    /**
     * @param name a short name for messages and log files ("aeron-shared")
     * @param command the child's command line
     * @param logDir where the child's log files go (one per start)
     */
    public PeerProcess(String name, List<String> command, Path logDir) {
        this.name = name;
        this.command = List.copyOf(command);
        this.logDir = logDir;
    }

    /** Sends one command and returns the answer after {@code RESULT }. */
    private synchronized String request(String line, double seconds) throws Exception {
        if (child == null) {
            started++;
            child = ChildProcess.start(name, command, logDir.resolve(name + "-" + started + ".log"));
            if (child.awaitLine("READY", System.nanoTime() + 120 * SECOND) == null) {
                String log = child.log().toString();
                close();
                throw new IllegalStateException(name + ": child not ready within 120 s (see " + log + ")");
            }
        }
        child.send(line);
        String answer = child.awaitLine("RESULT ", System.nanoTime() + (long) ((seconds + 90) * SECOND));
        if (answer == null) {
            String log = child.log().toString();
            close();
            throw new IllegalStateException(name + ": no answer to '" + line + "' in time, child killed (see " + log + ")");
        }
        String result = answer.substring("RESULT ".length());
        Matcher cpu = Pattern.compile("cpu=([0-9.]+)$").matcher(result);
        lastCpu = cpu.find() ? Double.parseDouble(cpu.group(1)) : Double.NaN;
        if (result.startsWith("error")) {
            throw new IllegalStateException(name + ": " + result.replaceFirst(" cpu=[0-9.]+$", ""));
        }
        return result;
    }

    /** A throughput system served by this child. */
    public ThroughputSystem throughput(String systemName, boolean reliable) {
        return new ThroughputSystem() {
            @Override
            public String name() {
                return systemName;
            }

            @Override
            public boolean reliable() {
                return reliable;
            }

            @Override
            public ThroughputRun measure(int size, int connections, double seconds) throws Exception {
                String answer = request(String.format(Locale.ROOT, "throughput %d %d %b %.3f", size, connections, reliable, seconds),
                        seconds + 20);
                Matcher m = THROUGHPUT.matcher(answer);
                if (!m.find()) {
                    throw new IllegalStateException(name + ": unreadable answer " + answer);
                }
                return new ThroughputRun(Double.parseDouble(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)));
            }
        };
    }

    /** A ping-pong system served by this child. */
    public PingPongSystem pingPong(String systemName) {
        return new PingPongSystem() {
            @Override
            public String name() {
                return systemName;
            }

            @Override
            public Histogram measure(int size, double seconds) throws Exception {
                String answer = request(String.format(Locale.ROOT, "pingpong %d %.3f", size, seconds), seconds + 30);
                Matcher m = PINGPONG.matcher(answer);
                if (!m.find()) {
                    throw new IllegalStateException(name + ": unreadable answer " + answer.substring(0, Math.min(200, answer.length())));
                }
                try {
                    return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(m.group(2))), 0);
                } catch (DataFormatException e) {
                    throw new IllegalStateException(name + ": unreadable histogram", e);
                }
            }

            @Override
            public double lastCpuCores() {
                return lastCpu;
            }
        };
    }

    /** Asks the child to quit, then kills it if it has not within 10 s. */
    @Override
    public synchronized void close() {
        if (child != null) {
            child.send("quit");
            child.closeStdin();
            try {
                child.waitFor(System.nanoTime() + 10 * SECOND);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            child.close();
            child = null;
        }
    }
}
