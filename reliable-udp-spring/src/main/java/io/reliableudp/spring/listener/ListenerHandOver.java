package io.reliableudp.spring.listener;

import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.support.InboundUdpMessage;
import io.reliableudp.spring.support.UdpChannel;
import io.reliableudp.spring.support.Envelope;
import io.reliableudp.spring.support.EnvelopeCodec;
import io.reliableudp.spring.support.EnvelopeException;
import io.reliableudp.spring.support.KeyedSerialExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * How one listener container hands the messages it takes to its listener: one serial queue per
 * (peer, channel) on the executor (a virtual thread per task when none is given), a few of them round
 * robin on an unordered channel with concurrency above 1, each message counted in hand by the
 * {@link ListenerBackPressure} until the {@link ListenerPipeline} is done with it; and, when the container
 * stops, the drain of what it took within the shutdown timeout, and the count, log and answer of what is
 * left. The container calls {@link #open()}, {@link #detach()} and {@link #drain} under its lifecycle
 * lock's rules. Logs under the container's name.
 */
final class ListenerHandOver {

    private static final Log logger = LogFactory.getLog(UdpMessageListenerContainer.class);
    private static final int NOT_PROCESSED_LOGGED = 20;

    private final String id;
    private final @Nullable Executor givenExecutor;
    private final ListenerPipeline pipeline;
    private final ListenerBackPressure backPressure;
    private final ListenerReplier replier;
    private final LongAdder notProcessed = new LongAdder();
    private final AtomicLong notProcessedLogged = new AtomicLong();
    private final AtomicInteger roundRobin = new AtomicInteger();
    private @Nullable ExecutorService ownExecutor;
    private volatile @Nullable KeyedSerialExecutor executor;
    private volatile int concurrency = 1;

    /** What {@link #detach()} took from the hand-over: the queues to drain and an executor to shut down. */
    record Detached(@Nullable KeyedSerialExecutor serial, @Nullable ExecutorService own) {
    }

    ListenerHandOver(String id, @Nullable Executor givenExecutor, ListenerPipeline pipeline, ListenerBackPressure backPressure,
            ListenerReplier replier) {
        this.id = id;
        this.givenExecutor = givenExecutor;
        this.pipeline = pipeline;
        this.backPressure = backPressure;
        this.replier = replier;
    }

    void setConcurrency(int concurrency) {
        this.concurrency = concurrency;
    }

    int concurrency() {
        return concurrency;
    }

    long notProcessedCount() {
        return notProcessed.sum();
    }

    /** Opens the queues (on start): on the given executor, else on virtual threads of its own. */
    void open() {
        Executor e = givenExecutor;
        if (e == null) {
            ExecutorService own = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("rudp-" + id + "-", 0).factory());
            ownExecutor = own;
            e = own;
        }
        executor = new KeyedSerialExecutor(e);
        notProcessedLogged.set(0);
    }

    /** Queues a message the container took (receive thread); counted and answered when it cannot be queued. */
    void offer(InboundUdpMessage message) {
        KeyedSerialExecutor serial = executor;
        if (serial == null) {
            notProcessed(message, "the listener is stopped");
            return;
        }
        int n = backPressure.take();
        try {
            serial.execute(new Key(message.address(), message.channel().index(), slot(message.channel())), new Task(message));
        } catch (RejectedExecutionException e) {
            backPressure.untaken();
            notProcessed(message, "its executor is shut down");
            return;
        }
        backPressure.queued(n);
    }

    /** Takes the queues and the own executor out of the hand-over (on stop, under the container's lock). */
    Detached detach() {
        ExecutorService own = ownExecutor;
        ownExecutor = null;
        return new Detached(executor, own);
    }

    /** Forgets the queues once drained, when the container was not started again meanwhile. */
    void forget() {
        executor = null;
    }

    /**
     * Hands what the container took to the listener within the timeout; what is left is not processed
     * (counted, logged, its waiting sender answered); an own executor is shut down last.
     */
    void drain(Detached detached, Duration shutdownTimeout) {
        KeyedSerialExecutor serial = detached.serial();
        if (serial != null) {
            if (!serial.awaitIdle(shutdownTimeout)) {
                logger.warn("listener '" + id + "' still had " + backPressure.inHand() + " messages in hand after " + shutdownTimeout);
            }
            List<Runnable> left = serial.shutdown();
            for (Runnable r : left) {
                backPressure.untaken();
                notProcessed(((Task) r).message, "it stopped before the message's turn came (shutdown timeout " + shutdownTimeout + ")");
            }
        }
    }

    /** Shuts an own executor down (after the drain, outside the container's lock). */
    static void shutDown(@Nullable ExecutorService own) {
        if (own == null) {
            return;
        }
        own.shutdown();
        try {
            if (!own.awaitTermination(1, TimeUnit.SECONDS)) {
                own.shutdownNow();
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            own.shutdownNow();
        }
    }

    /** A message in hand: queued for, or running in, the listener. */
    private final class Task implements Runnable {
        private final InboundUdpMessage message;

        Task(InboundUdpMessage message) {
            this.message = message;
        }

        @Override
        public void run() {
            try {
                pipeline.process(message);
            } finally {
                backPressure.released();
            }
        }
    }

    /**
     * A message the container took but could not hand to the listener (it stopped): counted, logged
     * with its peer, channel and id (the first few of each stop one by one, then their number), and a
     * sender waiting for the listener ({@code sendAndReceive}, ack mode PROCESSED) is told at once.
     */
    private void notProcessed(InboundUdpMessage in, String why) {
        notProcessed.increment();
        long n = notProcessedLogged.incrementAndGet();
        if (n <= NOT_PROCESSED_LOGGED) {
            logger.warn("listener '" + id + "' could not handle a message (" + why + "): peer " + in.address() + ", channel '"
                    + in.channel().name() + "', id " + in.messageId());
        } else if (n == NOT_PROCESSED_LOGGED + 1) {
            logger.warn("listener '" + id + "' could not handle more messages (" + why + "); counted, no longer logged one by one");
        }
        Envelope envelope;
        try {
            envelope = EnvelopeCodec.decode(in.payload());
        } catch (EnvelopeException e) {
            return;
        }
        if (envelope.isRequest() || envelope.isAckRequested()) {
            replier.notProcessed(in, envelope.isRequest(), envelope.correlationId());
        }
    }

    /** Which serial queue of a (peer, channel) a message joins: always 0 for ordered and sequenced channels. */
    private int slot(UdpChannel channel) {
        int n = concurrency;
        if (n <= 1 || (channel.mode() != DeliveryMode.RELIABLE_UNORDERED && channel.mode() != DeliveryMode.UNRELIABLE)) {
            return 0;
        }
        return Math.floorMod(roundRobin.getAndIncrement(), n);
    }

    private record Key(InetSocketAddress address, int channel, int slot) {
    }
}
