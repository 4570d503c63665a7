package io.reliableudp.bench.scale;

import io.reliableudp.DropReason;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One client JVM of the {@code scale} benchmark: a {@link ClientHarness} of N clients on T threads.
 * Prints {@code READY clients=N} once their sockets are open, then answers commands on stdin:
 * {@code CONNECT [PER_SECOND]} (all start their handshakes at once, or PER_SECOND a second), {@code STATUS} (connected, sent, delivered, failed, refused, timeouts, ended, drops, I/O
 * errors), {@code SEND HZ BYTES} (every connected client sends HZ messages of BYTES per second from
 * now; {@code SEND 0 0} stops); end of input closes the clients and exits.
 *
 * <p>Arguments: {@code SERVER_PORT CLIENTS THREADS SEED}.
 */
public final class ScaleClientMain {

    private ScaleClientMain() {
    }

    /** Runs the clients until stdin ends. */
    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int clients = Integer.parseInt(args[1]);
        int threads = Integer.parseInt(args[2]);
        long seed = Long.parseLong(args[3]);
        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        try (ClientHarness h = new ClientHarness(server, clients, threads, seed);
             BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            System.out.println("READY clients=" + clients);
            for (String line; (line = in.readLine()) != null; ) {
                String[] w = line.trim().split("\\s+");
                switch (w[0]) {
                    case "STATUS" -> {
                        StringBuilder drops = new StringBuilder();
                        for (DropReason r : DropReason.values()) {
                            long n = h.dropsByReason[r.ordinal()].sum();
                            if (n > 0) {
                                drops.append(" drop_").append(r.name().toLowerCase(Locale.ROOT)).append('=').append(n);
                            }
                        }
                        System.out.printf(Locale.ROOT,
                                "STATUS connected=%d sent=%d delivered=%d failed=%d refused=%d timeouts=%d ended=%d drops=%d ioerrors=%d%s%n",
                                h.connected.sum(), h.sent.sum(), h.delivered.sum(), h.failed.sum(), h.refused.sum(),
                                h.timeouts.sum(), h.ended(), h.drops.sum(), h.ioErrors.get(), drops);
                    }
                    case "CONNECT" -> {
                        h.connect(w.length > 1 ? Double.parseDouble(w[1]) : 0);
                        System.out.println("CONNECTING");
                    }
                    case "SEND" -> {
                        h.startSending(Double.parseDouble(w[1]), Integer.parseInt(w[2]));
                        System.out.println("SENDING " + w[1]);
                    }
                    default -> System.out.println("UNKNOWN " + line);
                }
            }
        }
    }
}
