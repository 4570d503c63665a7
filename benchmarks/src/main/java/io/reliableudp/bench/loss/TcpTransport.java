package io.reliableudp.bench.loss;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * TCP in the {@code loss} benchmark: one connection, {@code TCP_NODELAY} on both ends (no Nagle delay), each
 * event written as its fixed-size bytes and read back with {@code readFully}; the kernel's defaults otherwise
 * (CUBIC, its own retransmission timers).
 */
final class TcpTransport implements EventTransport {

    private final int eventBytes;

    TcpTransport(int eventBytes) {
        this.eventBytes = eventBytes;
    }

    @Override
    public Receiving listen(int port, Consumer<byte[]> sink) throws IOException {
        ServerSocket server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(new InetSocketAddress(port));
        Thread acceptor = new Thread(() -> {
            try {
                while (!server.isClosed()) {
                    Socket s = server.accept();
                    s.setTcpNoDelay(true);
                    Thread reader = new Thread(() -> read(s, sink), "tcp-reader");
                    reader.setDaemon(true);
                    reader.start();
                }
            } catch (IOException e) {
                // closed
            }
        }, "tcp-acceptor");
        acceptor.setDaemon(true);
        acceptor.start();
        return new Receiving() {
            @Override
            public int port() {
                return server.getLocalPort();
            }

            @Override
            public void close() throws IOException {
                server.close();
            }
        };
    }

    private void read(Socket s, Consumer<byte[]> sink) {
        try (s; DataInputStream in = new DataInputStream(s.getInputStream())) {
            while (true) {
                byte[] event = new byte[eventBytes];
                in.readFully(event);
                sink.accept(event);
            }
        } catch (IOException e) {
            // the sender closed the connection
        }
    }

    @Override
    public Sending connect(String host, int port, Duration timeout) throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
        OutputStream out = s.getOutputStream();
        return new Sending() {
            @Override
            public boolean send(byte[] event) throws IOException {
                out.write(event);
                return true;
            }

            @Override
            public void close() throws IOException {
                s.close();
            }
        };
    }
}
