package io.reliableudp.bench.systems;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.ip.udp.inbound.UnicastReceivingChannelAdapter;
import org.springframework.integration.ip.udp.outbound.UnicastSendingMessageHandler;
import org.springframework.integration.support.MessageBuilder;
import org.springframework.messaging.MessageChannel;

/**
 * The Spring Integration baseline: its UDP adapters from {@code spring-integration-ip} (the version of
 * the Spring Boot BOM), created by hand within a minimal {@code @EnableIntegration} application
 * context (started once, on the first measurement, closed by {@link #close()}). One
 * {@link UnicastReceivingChannelAdapter} on loopback (its defaults: a receiving thread that hands each
 * packet to a pool of 5 threads; 4 MiB socket receive buffer, packet buffer of the message size plus
 * 256 bytes for the ack header) whose output channel counts; one
 * {@link UnicastSendingMessageHandler} per connection, each driven by its own sender thread.
 *
 * <p>With {@code acknowledge} on (the reliable variant), every message carries an ack id and address,
 * the adapter answers each with an ack datagram, and the handler blocks until the ack arrives (5 s
 * timeout, then it throws: nothing is resent): one message in flight per connection. Without it (the
 * unreliable variant) the handler fires datagrams as fast as its thread can.
 */
public final class SpringIntegrationUdp implements ThroughputSystem {

    private static final String LOOPBACK = "127.0.0.1";
    private static final long DRAIN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final boolean acknowledge;
    private AnnotationConfigApplicationContext context;

    /** The Spring Integration infrastructure (evaluation context, conversion) the adapters look up. */
    @Configuration(proxyBeanMethods = false)
    @EnableIntegration
    static class Infrastructure {
    }

    /** @param acknowledge the handler's {@code acknowledge} (the reliable variant) */
    public SpringIntegrationUdp(boolean acknowledge) {
        this.acknowledge = acknowledge;
    }

    @Override
    public String name() {
        return acknowledge ? "spring-integration-udp/ack" : "spring-integration-udp/unreliable";
    }

    @Override
    public boolean reliable() {
        return acknowledge;
    }

    @Override
    public ThroughputRun measure(int size, int connections, double seconds) throws Exception {
        if (context == null) {
            context = new AnnotationConfigApplicationContext(Infrastructure.class);
        }
        var beanFactory = context.getBeanFactory();
        AtomicLong delivered = new AtomicLong();
        UnicastReceivingChannelAdapter adapter = new UnicastReceivingChannelAdapter(0);
        adapter.setLocalAddress(LOOPBACK);
        adapter.setSoReceiveBufferSize(4 << 20);
        adapter.setOutputChannel((MessageChannel) (message, timeout) -> {
            delivered.incrementAndGet(); // the pool's threads
            return true;
        });
        adapter.setReceiveBufferSize(size + 256);
        adapter.setApplicationEventPublisher(context);
        adapter.setBeanFactory(beanFactory);
        adapter.afterPropertiesSet();
        int port = adapter.getSocket().getLocalPort();
        adapter.start();
        List<UnicastSendingMessageHandler> handlers = new ArrayList<>();
        List<Thread> senders = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong sent = new AtomicLong();
        AtomicLong failed = new AtomicLong();
        try {
            for (int i = 0; i < connections; i++) {
                UnicastSendingMessageHandler handler = acknowledge
                        ? new UnicastSendingMessageHandler(LOOPBACK, port, true, LOOPBACK, 0, 5000)
                        : new UnicastSendingMessageHandler(LOOPBACK, port);
                handler.setBeanFactory(beanFactory);
                handler.afterPropertiesSet();
                handler.start();
                handlers.add(handler);
            }
            byte[] payload = new byte[size];
            for (UnicastSendingMessageHandler handler : handlers) {
                senders.add(Thread.ofPlatform().name("si-udp-sender").start(() -> {
                    while (!stop.get()) {
                        sent.incrementAndGet();
                        try {
                            handler.handleMessage(MessageBuilder.withPayload(payload).build());
                        } catch (RuntimeException e) {
                            failed.incrementAndGet(); // no ack within the timeout: counted, the run goes on
                        }
                    }
                }));
            }
            Thread.sleep(300);
            long before = delivered.get();
            long start = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            long after = delivered.get();
            double elapsed = (System.nanoTime() - start) / 1e9;
            stop.set(true);
            for (Thread sender : senders) {
                sender.join();
            }
            long deadline = System.nanoTime() + (acknowledge ? DRAIN_TIMEOUT_NANOS : TimeUnit.MILLISECONDS.toNanos(100));
            while (delivered.get() < sent.get() && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            return new ThroughputRun((after - before) / elapsed, sent.get(), delivered.get());
        } finally {
            stop.set(true);
            for (UnicastSendingMessageHandler handler : handlers) {
                handler.stop();
            }
            adapter.stop();
        }
    }

    @Override
    public void close() {
        if (context != null) {
            context.close();
            context = null;
        }
    }
}
