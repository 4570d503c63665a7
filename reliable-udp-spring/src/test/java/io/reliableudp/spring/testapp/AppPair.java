package io.reliableudp.spring.testapp;

import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The two applications of a messaging test: a server, and a client started after it that names it as a
 * peer. Either kind of test application fits: a {@link TestNode}, or the context a listener test's
 * {@code ListenerTestApp} starts. Closing the pair closes the client, then the server.
 *
 * <pre>{@code
 * apps = AppPair.start(() -> server().start(), server -> client().peer("server", server).start());
 * apps.client().template().send("server", "events", "hello").get();
 * }</pre>
 *
 * @param <A> the kind of test application
 */
public final class AppPair<A extends AutoCloseable> implements AutoCloseable {

    private final A server;
    private final A client;

    private AppPair(A server, A client) {
        this.server = server;
        this.client = client;
    }

    /**
     * Starts the server, then the client; when the client does not start, the server is closed again.
     *
     * @param server starts the server
     * @param client starts the client, given the running server
     * @param <A> the kind of test application
     * @return the running pair
     */
    public static <A extends AutoCloseable> AppPair<A> start(Supplier<A> server, Function<A, A> client) {
        A started = server.get();
        try {
            return new AppPair<>(started, client.apply(started));
        } catch (RuntimeException | Error e) {
            try {
                started.close();
            } catch (Exception notClosed) {
                e.addSuppressed(notClosed);
            }
            throw e;
        }
    }

    /** The server. */
    public A server() {
        return server;
    }

    /** The client, with the server as its peer. */
    public A client() {
        return client;
    }

    /** Closes the client, then the server (also when the client's close failed). */
    @Override
    public void close() {
        try (A first = server; A second = client) {
            // try-with-resources closes in reverse order: the client, then the server
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("closing a test application failed", e);
        }
    }
}
