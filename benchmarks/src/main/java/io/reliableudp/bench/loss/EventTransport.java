package io.reliableudp.bench.loss;

import java.time.Duration;
import java.util.function.Consumer;

/**
 * How a Java peer of the {@code loss} benchmark moves its events: one implementation per system
 * ({@link RudpTransport}, {@link TcpTransport}, {@link KcpTransport}); {@link LossPeer} does the rest
 * (pacing, timestamps, recording) the same way for all of them.
 */
interface EventTransport {

    /**
     * Starts receiving events on a port.
     *
     * @param port the port, 0 for any free one (warm-up)
     * @param sink gets every event as delivered to the application, on the transport's own thread
     */
    Receiving listen(int port, Consumer<byte[]> sink) throws Exception;

    /** Opens the stream to a receiver; under loss this may take several handshake attempts. */
    Sending connect(String host, int port, Duration timeout) throws Exception;

    /** A bound receiver. */
    interface Receiving extends AutoCloseable {
        /** The bound port. */
        int port();

        /** The transport's own traffic counters ("bytes=N datagrams=M"), or empty when it has none. */
        default String stats() {
            return "";
        }
    }

    /** An open stream. */
    interface Sending extends AutoCloseable {
        /**
         * Sends one event (the array is handed over).
         *
         * @return false when the transport refused it at once (it will not be delivered)
         */
        boolean send(byte[] event) throws Exception;

        /** The transport's own traffic counters ("bytes=N datagrams=M"), or empty when it has none. */
        default String stats() {
            return "";
        }
    }
}
