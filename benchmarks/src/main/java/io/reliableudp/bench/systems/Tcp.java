package io.reliableudp.bench.systems;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.HdrHistogram.Histogram;

/**
 * The TCP baseline: plain blocking {@link Socket}s on loopback with {@code TCP_NODELAY}, each message
 * framed by a 4-byte length. Throughput: one sender thread writes 64 messages into each
 * connection's 64 KiB buffered stream in turn and flushes it (as the library's sender flushes every 64
 * messages), one reader thread per accepted connection counts. Ping-pong: one connection, an echo
 * thread writing each message back.
 */
public final class Tcp implements ThroughputSystem, PingPongSystem {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final int BURST = 64;
    private static final int BUFFER = 64 * 1024;
    private static final long DRAIN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public boolean reliable() {
        return true;
    }

    @Override
    public ThroughputRun measure(int size, int connections, double seconds) throws Exception {
        List<Socket> sockets = new ArrayList<>();
        List<Thread> readers = new ArrayList<>();
        AtomicLongArray delivered = new AtomicLongArray(connections);
        try (ServerSocket server = new ServerSocket(0, connections, LOOPBACK)) {
            List<DataOutputStream> outs = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                Socket client = new Socket();
                sockets.add(client);
                client.setTcpNoDelay(true);
                client.connect(new InetSocketAddress(LOOPBACK, server.getLocalPort()));
                outs.add(new DataOutputStream(new BufferedOutputStream(client.getOutputStream(), BUFFER)));
                Socket accepted = server.accept();
                sockets.add(accepted);
                accepted.setTcpNoDelay(true);
                int index = i;
                readers.add(Thread.ofPlatform().name("tcp-reader-" + i).start(() -> read(accepted, delivered, index)));
            }
            AtomicBoolean stop = new AtomicBoolean();
            long[] sent = new long[connections];
            Exception[] failure = new Exception[1];
            Thread sender = Thread.ofPlatform().name("tcp-sender").start(() -> {
                byte[] payload = new byte[size];
                try {
                    while (!stop.get()) {
                        for (int c = 0; c < connections; c++) {
                            DataOutputStream out = outs.get(c);
                            for (int m = 0; m < BURST; m++) {
                                out.writeInt(size);
                                out.write(payload);
                            }
                            out.flush();
                            sent[c] += BURST;
                        }
                    }
                } catch (IOException e) {
                    failure[0] = e;
                }
            });
            Thread.sleep(200);
            long before = sum(delivered);
            long start = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            long after = sum(delivered);
            double elapsed = (System.nanoTime() - start) / 1e9;
            stop.set(true);
            sender.join();
            if (failure[0] != null) {
                throw failure[0];
            }
            long total = 0;
            for (long s : sent) {
                total += s;
            }
            long deadline = System.nanoTime() + DRAIN_TIMEOUT_NANOS;
            while (sum(delivered) < total && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            return new ThroughputRun((after - before) / elapsed, total, sum(delivered));
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
            for (Thread r : readers) {
                r.join(1000);
            }
        }
    }

    private static void read(Socket socket, AtomicLongArray delivered, int index) {
        try (DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), BUFFER))) {
            byte[] message = new byte[64 * 1024];
            long count = 0;
            while (true) {
                int length = in.readInt();
                in.readFully(message, 0, length);
                delivered.lazySet(index, ++count);
            }
        } catch (EOFException e) {
            // the sender closed: the end of the measurement
        } catch (IOException e) {
            // closed under us: the end of the measurement
        }
    }

    private static long sum(AtomicLongArray values) {
        long s = 0;
        for (int i = 0; i < values.length(); i++) {
            s += values.get(i);
        }
        return s;
    }

    @Override
    @SuppressWarnings("try") // the client socket is closed early on purpose: that ends the echo thread's blocking read
    public Histogram measure(int size, double seconds) throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, LOOPBACK); Socket client = new Socket()) {
            client.setTcpNoDelay(true);
            client.setSoTimeout(5_000);
            client.connect(new InetSocketAddress(LOOPBACK, server.getLocalPort()));
            Socket accepted = server.accept();
            accepted.setTcpNoDelay(true);
            Thread echo = Thread.ofPlatform().name("tcp-echo").start(() -> {
                try (DataInputStream in = new DataInputStream(new BufferedInputStream(accepted.getInputStream(), BUFFER));
                     DataOutputStream out = new DataOutputStream(new BufferedOutputStream(accepted.getOutputStream(), BUFFER))) {
                    byte[] message = new byte[64 * 1024];
                    while (true) {
                        int length = in.readInt();
                        in.readFully(message, 0, length);
                        out.writeInt(length);
                        out.write(message, 0, length);
                        out.flush();
                    }
                } catch (IOException e) {
                    // closed: the end of the measurement
                }
            });
            DataInputStream in = new DataInputStream(new BufferedInputStream(client.getInputStream(), BUFFER));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(client.getOutputStream(), BUFFER));
            byte[] payload = new byte[size];
            byte[] reply = new byte[size];
            Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
            long end = System.nanoTime() + (long) (seconds * 1e9);
            for (long t0 = System.nanoTime(); t0 - end < 0; t0 = System.nanoTime()) {
                out.writeInt(size);
                out.write(payload);
                out.flush();
                in.readInt();
                in.readFully(reply);
                h.recordValue(System.nanoTime() - t0);
            }
            client.close();
            accepted.close();
            echo.join(1000);
            return h;
        }
    }
}
