package io.reliableudp.bench.scale;

import io.reliableudp.DisconnectReason;
import io.reliableudp.DropReason;
import io.reliableudp.connection.Connection;
import io.reliableudp.connection.ConnectionSettings;
import io.reliableudp.connection.MessageSession;
import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.message.SendCompletion;
import io.reliableudp.transport.NodeConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Many reliable-UDP clients on few threads: each client is one UDP socket and one sans-I/O
 * {@link Connection} (the connection and message layers, no node of its own), and each thread owns a
 * {@link Selector} over its clients' sockets and a heap of their wake-up times (the next message to
 * send, the message layer's deadline, the housekeeping tick that sends keepalives and handshake
 * retries). A node per client (its own I/O thread, queues, timers) would be too heavy for thousands
 * of clients on two cores; this is what a node does for one peer, for many peers per thread.
 *
 * <p>The clients speak the transport's wire as a {@code ReliableUdpNode} client would, with the
 * settings a node of the default {@link NodeConfig} derives ({@link #settings()}). Each sends
 * {@code rateHz} reliable messages per second on channel 0 (reliable-ordered in the default
 * channels), at a random phase, once {@link #startSending} was called.
 */
final class ClientHarness implements AutoCloseable {

    /**
     * Housekeeping per client: keepalives (the default interval is 100 ms; a client that sends its
     * messages never needs one), handshake retries (every 250 ms), the session's statistics.
     */
    private static final double HOUSEKEEPING_SECONDS = 0.1;

    private final InetSocketAddress server;
    private final ConnectionSettings settings;
    private final Worker[] workers;
    private final long epochNanos = System.nanoTime();
    private volatile double sendRateHz;
    private volatile int payloadBytes = 32;

    final LongAdder connected = new LongAdder();
    final LongAdder sent = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder delivered = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder timeouts = new LongAdder();
    final LongAdder disconnects = new LongAdder();
    final LongAdder drops = new LongAdder();
    /** Datagrams the clients' connections dropped, by {@link DropReason} ordinal. */
    final LongAdder[] dropsByReason = new LongAdder[DropReason.values().length];
    final AtomicLong ioErrors = new AtomicLong();

    /**
     * Opens {@code clients} sockets on loopback, spread over {@code threads}; {@link #connect} starts
     * their handshakes.
     */
    ClientHarness(InetSocketAddress server, int clients, int threads, long seed) throws IOException {
        this.server = server;
        this.settings = settings();
        for (int i = 0; i < dropsByReason.length; i++) {
            dropsByReason[i] = new LongAdder();
        }
        this.workers = new Worker[threads];
        for (int t = 0; t < threads; t++) {
            int n = clients / threads + (t < clients % threads ? 1 : 0);
            workers[t] = new Worker(t, n, new SplittableRandom(seed * 31 + t));
        }
    }

    /**
     * Starts the clients' handshakes: all at once ({@code perSecond} 0: each thread sends its clients'
     * first requests, then serves them), or {@code perSecond} a second, evenly spread.
     */
    void connect(double perSecond) {
        for (Worker w : workers) {
            w.connectInterval = perSecond > 0 ? workers.length / perSecond : 0;
            w.thread.start();
        }
    }

    /** The connection settings a node with the default configuration uses (see {@code DatagramNode}). */
    static ConnectionSettings settings() {
        NodeConfig node = NodeConfig.builder().build();
        MessageConfig requested = node.message();
        MessageConfig message = requested.toBuilder()
                .lowerLayerOverhead(Math.max(Connection.frameOverhead(false), requested.lowerLayerOverhead()))
                .sendRateHz(node.sendRateHz()).sendMode(node.sendMode()).build();
        double keepAlive = node.keepAliveInterval().toNanos() / 1e9;
        double handshakeResend = Math.min(keepAlive, 0.25);
        // probes after silence, every max(keepalive / 4, the node's tick): the clients probe as a node's do
        return new ConnectionSettings(node.protocolId(), null, keepAlive, node.timeout().toNanos() / 1e9,
                node.connectTimeout().toNanos() / 1e9, handshakeResend, message, MessageSession.FACTORY,
                true, ConnectionSettings.probeInterval(keepAlive, handshakeResend / 2));
    }

    /** From now on every connected client sends {@code hz} messages of {@code bytes} per second (0: stop). */
    void startSending(double hz, int bytes) {
        payloadBytes = bytes;
        sendRateHz = hz;
        for (Worker w : workers) {
            w.selector.wakeup();
        }
    }

    private double now() {
        return (System.nanoTime() - epochNanos) / 1e9;
    }

    /** Clients whose connection ended, for any reason. */
    long ended() {
        return disconnects.sum();
    }

    @Override
    public void close() {
        for (Worker w : workers) {
            w.running = false;
            w.selector.wakeup();
        }
        for (Worker w : workers) {
            try {
                w.thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One client: its socket, its connection, its schedule. */
    private final class Client implements Connection.Transmitter, Connection.Events, SendCompletion {
        final int index;
        final DatagramChannel channel;
        final Worker worker;
        Connection connection;
        boolean up;
        boolean ended;
        double nextSend = Double.POSITIVE_INFINITY;
        double nextHousekeeping;
        /** When this client starts its handshake. */
        double startAt;

        Client(int index, Worker worker, DatagramChannel channel) {
            this.index = index;
            this.worker = worker;
            this.channel = channel;
        }

        @Override
        public void transmit(byte[] data, int offset, int length) {
            ByteBuffer out = worker.out;
            out.clear();
            out.put(data, offset, length).flip();
            send(out);
        }

        @Override
        public void transmit(ByteBuffer buffer, int offset, int length) {
            buffer.limit(offset + length).position(offset);
            try {
                send(buffer);
            } finally {
                buffer.clear();
            }
        }

        private void send(ByteBuffer datagram) {
            try {
                channel.send(datagram, server);
            } catch (IOException e) {
                ioErrors.incrementAndGet();
            }
        }

        @Override
        public void onConnected() {
            up = true;
            connected.increment();
        }

        @Override
        public void onDisconnected(DisconnectReason reason, String detail) {
            if (!ended) {
                ended = true;
                disconnects.increment();
                if (reason == DisconnectReason.TIMEOUT || reason == DisconnectReason.CONNECT_TIMEOUT) {
                    timeouts.increment();
                }
            }
            if (up) {
                connected.decrement();
                up = false;
            }
        }

        @Override
        public void onMessage(int channel, int messageId, byte[] data, int offset, int length) {
            // the server sends no messages in this benchmark, only acknowledgements
        }

        @Override
        public void onDrop(DropReason reason) {
            drops.increment();
            dropsByReason[reason.ordinal()].increment();
        }

        @Override
        public void delivered(int channel, int messageId) {
            delivered.increment();
        }

        @Override
        public void failed(DeliveryException failure) {
            failed.increment();
        }
    }

    /** One thread: a selector over its clients' sockets and an indexed heap of their wake-up times. */
    private final class Worker implements Runnable {
        final Thread thread;
        final Selector selector;
        final Client[] clients;
        final ByteBuffer in = ByteBuffer.allocate(2048);
        final ByteBuffer out = ByteBuffer.allocateDirect(2048);
        final SplittableRandom random;
        volatile boolean running = true;
        // indexed binary min-heap of client indexes by wake time
        final double[] wake;
        final int[] heap;
        final int[] position;
        int heapSize;
        double rateSeen;
        /** Seconds between two of this thread's clients starting their handshakes (0: all at once). */
        double connectInterval;

        Worker(int id, int n, SplittableRandom random) throws IOException {
            this.random = random;
            this.selector = Selector.open();
            this.clients = new Client[n];
            this.wake = new double[n];
            this.heap = new int[n];
            this.position = new int[n];
            Arrays.fill(position, -1);
            for (int i = 0; i < n; i++) {
                DatagramChannel ch = DatagramChannel.open();
                ch.bind(new InetSocketAddress(server.getAddress(), 0));
                ch.configureBlocking(false);
                Client c = new Client(i, this, ch);
                clients[i] = c;
                ch.register(selector, SelectionKey.OP_READ, c);
            }
            this.thread = new Thread(this, "scale-clients-" + id);
            this.thread.setDaemon(true);
        }

        @Override
        public void run() {
            try {
                nonces = new java.util.Random(random.nextLong());
                double now = now();
                for (Client c : clients) {
                    c.startAt = now + c.index * connectInterval;
                    if (connectInterval == 0) {
                        start(c, now);
                    }
                    schedule(c, now);
                }
                loop();
            } catch (IOException | RuntimeException e) {
                ioErrors.incrementAndGet();
                e.printStackTrace();
            } finally {
                for (Client c : clients) {
                    try {
                        c.channel.close();
                    } catch (IOException ignored) {
                        // closing anyway
                    }
                }
                try {
                    selector.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }

        private void loop() throws IOException {
            while (running) {
                double now = now();
                double hz = sendRateHz;
                if (hz != rateSeen) {
                    rateSeen = hz;
                    for (Client c : clients) {
                        // a random phase, so the clients do not send in lockstep
                        c.nextSend = hz > 0 ? now + random.nextDouble() / hz : Double.POSITIVE_INFINITY;
                        schedule(c, now);
                    }
                }
                while (heapSize > 0 && wake[heap[0]] <= now) {
                    Client c = clients[heap[0]];
                    service(c, now);
                    schedule(c, now);
                    if (position[c.index] >= 0 && wake[c.index] <= now) {
                        // still due (a round cut by its packet limit): the next pass, after the sockets were read
                        wake[c.index] = now + 0.0001;
                        siftDown(position[c.index]);
                    }
                }
                long waitMillis = heapSize == 0 ? 100 : (long) Math.ceil((wake[heap[0]] - now) * 1000);
                if (waitMillis <= 0) {
                    selector.selectNow();
                } else {
                    selector.select(Math.min(waitMillis, 100));
                }
                var keys = selector.selectedKeys();
                if (!keys.isEmpty()) {
                    now = now();
                    for (SelectionKey key : keys) {
                        Client c = (Client) key.attachment();
                        if (c.connection == null) {
                            continue;
                        }
                        SocketAddress from;
                        while ((from = c.channel.receive(in.clear())) != null) {
                            if (from.equals(server)) {
                                c.connection.receive(in.array(), 0, in.position(), now);
                            }
                        }
                        schedule(c, now);
                    }
                    keys.clear();
                }
            }
        }

        java.util.Random nonces;

        private void start(Client c, double now) {
            c.connection = Connection.client(settings, c, c, nonces, now);
            c.nextHousekeeping = now + HOUSEKEEPING_SECONDS * random.nextDouble();
        }

        /** What is due for one client: its handshake's start, its message, its session's deadline, its housekeeping. */
        private void service(Client c, double now) {
            if (c.connection == null) {
                start(c, now);
                return;
            }
            Connection conn = c.connection;
            if (c.ended) {
                return;
            }
            if (c.up && now >= c.nextSend) {
                double hz = rateSeen;
                byte[] payload = new byte[payloadBytes]; // the message layer keeps it until acknowledged
                int id = conn.send(0, payload, c, now);
                if (id >= 0) {
                    sent.increment();
                } else {
                    refused.increment();
                }
                conn.flush(now);
                // the next one on the schedule, not after this late one (a late turn does not slow the rate)
                c.nextSend = Math.max(c.nextSend + 1 / hz, now - 1 / hz);
            }
            if (now >= c.nextHousekeeping || conn.nextDeadline() <= now) {
                if (now >= c.nextHousekeeping) {
                    c.nextHousekeeping = now + HOUSEKEEPING_SECONDS;
                }
                conn.update(now);
            }
        }

        private void schedule(Client c, double now) {
            double t = c.connection == null ? c.startAt : c.ended ? Double.POSITIVE_INFINITY
                    : Math.min(c.nextHousekeeping, Math.min(c.up ? c.nextSend : Double.POSITIVE_INFINITY,
                            c.connection.nextDeadline()));
            int i = c.index;
            if (t == Double.POSITIVE_INFINITY) {
                if (position[i] >= 0) {
                    removeAt(position[i]);
                }
                return;
            }
            wake[i] = t;
            if (position[i] < 0) {
                position[i] = heapSize;
                heap[heapSize++] = i;
            }
            siftUp(position[i]);
            siftDown(position[i]);
        }

        private void removeAt(int p) {
            int i = heap[p];
            position[i] = -1;
            heapSize--;
            if (p < heapSize) {
                int moved = heap[heapSize];
                heap[p] = moved;
                position[moved] = p;
                siftUp(p);
                siftDown(position[moved]);
            }
        }

        private void siftUp(int p) {
            int i = heap[p];
            while (p > 0) {
                int parent = (p - 1) >>> 1;
                if (wake[heap[parent]] <= wake[i]) {
                    break;
                }
                heap[p] = heap[parent];
                position[heap[p]] = p;
                p = parent;
            }
            heap[p] = i;
            position[i] = p;
        }

        private void siftDown(int p) {
            int i = heap[p];
            while (true) {
                int child = 2 * p + 1;
                if (child >= heapSize) {
                    break;
                }
                if (child + 1 < heapSize && wake[heap[child + 1]] < wake[heap[child]]) {
                    child++;
                }
                if (wake[heap[child]] >= wake[i]) {
                    break;
                }
                heap[p] = heap[child];
                position[heap[p]] = p;
                p = child;
            }
            heap[p] = i;
            position[i] = p;
        }
    }
}
