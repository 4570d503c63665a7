package io.reliableudp.bench.systems;

import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpOperations;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.messaging.handler.annotation.SendTo;

/**
 * The Spring round trip, as a ping-pong system: two Boot applications in this JVM (the
 * starter, every default; loopback, port 0), the pinger's application thread calls
 * {@code ReliableUdpOperations.send("echo", "ping", bytes)}, the echo application's
 * {@code @UdpMessageListener(channels = "ping") @SendTo("pong")} returns the bytes, and the pinger's
 * {@code @UdpMessageListener(channels = "pong")} wakes the application thread, which records the round
 * trip and sends the next ping. Both channels are reliable-ordered. The contexts start before and close
 * after each measurement (their start is not measured).
 */
public final class SpringRoundTrip implements PingPongSystem {

    /** The system's name in the ping-pong results. */
    public static final String NAME = "reliable-udp/spring";

    private static final String[] COMMON = {
        "--reliable-udp.port=0",
        "--reliable-udp.bind-address=127.0.0.1",
        "--reliable-udp.channels.ping.index=0",
        "--reliable-udp.channels.ping.delivery-mode=reliable-ordered",
        "--reliable-udp.channels.pong.index=1",
        "--reliable-udp.channels.pong.delivery-mode=reliable-ordered",
        "--logging.level.root=WARN",
        "--spring.main.register-shutdown-hook=false",
    };

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Histogram measure(int size, double seconds) throws Exception {
        Histogram h = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
        try (ConfigurableApplicationContext echo = start(EchoApplication.class);
             ConfigurableApplicationContext pinger = start(PingApplication.class,
                     "--reliable-udp.peers.echo.address=127.0.0.1:" + echo.getBean(ManagedReliableUdpNode.class).localAddress().getPort())) {
            ReliableUdpOperations udp = pinger.getBean(ReliableUdpOperations.class);
            Pongs pongs = pinger.getBean(Pongs.class);
            byte[] payload = new byte[size];
            // the named peer is connected in the background: ping until the first pong comes back
            long connectDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!roundTrip(udp, pongs, payload, TimeUnit.MILLISECONDS.toNanos(200))) {
                if (System.nanoTime() - connectDeadline > 0) {
                    throw new IllegalStateException("no pong within 20 s of starting the applications");
                }
            }
            long end = System.nanoTime() + (long) (seconds * 1e9);
            while (System.nanoTime() - end < 0) {
                long t0 = System.nanoTime();
                if (!roundTrip(udp, pongs, payload, TimeUnit.SECONDS.toNanos(5))) {
                    throw new IllegalStateException("Spring ping-pong stalled after " + h.getTotalCount() + " round trips");
                }
                h.recordValue(System.nanoTime() - t0);
            }
        }
        return h;
    }

    /** One ping and its pong; false when none came within {@code timeoutNanos}. */
    private static boolean roundTrip(ReliableUdpOperations udp, Pongs pongs, byte[] payload, long timeoutNanos) {
        long expected = pongs.count + 1;
        pongs.waiter = Thread.currentThread();
        udp.send("echo", "ping", payload);
        long deadline = System.nanoTime() + timeoutNanos;
        while (pongs.count < expected) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            LockSupport.parkNanos(pongs, left);
        }
        return true;
    }

    private static ConfigurableApplicationContext start(Class<?> application, String... more) {
        List<String> args = new ArrayList<>(List.of(COMMON));
        args.addAll(List.of(more));
        return new SpringApplicationBuilder(application).web(WebApplicationType.NONE).bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false).run(args.toArray(String[]::new));
    }

    /** The echo side: every ping comes back as a pong. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class EchoApplication {
        @Bean
        Echo echo() {
            return new Echo();
        }
    }

    /** The echo's listener. */
    static class Echo {
        @UdpMessageListener(channels = "ping")
        @SendTo("pong")
        byte[] echo(byte[] payload) {
            return payload;
        }
    }

    /** The pinging side. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PingApplication {
        @Bean
        Pongs pongs() {
            return new Pongs();
        }
    }

    /** The pinger's listener: counts pongs and wakes the waiting application thread. */
    static class Pongs {
        volatile long count;
        volatile Thread waiter;

        @UdpMessageListener(channels = "pong")
        void onPong(byte[] payload) {
            count++; // one listener thread at a time per (peer, channel): the container's serial queue
            Thread w = waiter;
            if (w != null) {
                LockSupport.unpark(w);
            }
        }
    }
}
