package io.reliableudp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The timer thread's work per wake-up is a method the JIT compiles by its calls: the thread's loop never
 * returns, and the body of such a loop is only compiled by on-stack replacement, after tens of thousands
 * of turns (minutes of a 60 Hz stream, interpreted until then). Counts only: the timer is driven through
 * wake-ups until the JVM's code list (the {@code Compiler.codelist} diagnostic command) shows the
 * method compiled, or a bound of wake-ups far above the JIT's call thresholds passes.
 */
@Timeout(120)
class WakeTimerCompilationTest {

    /** Far above C1's call threshold (a few hundred) and C2's (a few thousand). */
    private static final int MAX_WAKEUPS = 30_000;
    private static final String PASS = WakeTimer.class.getName() + "$Shared.pass(";

    @Test
    void theTimerThreadsWakeUpIsCompiledByItsCallsNotLeftToOnStackReplacement() throws Exception {
        AtomicLong waitingUntil = new AtomicLong(Long.MAX_VALUE);
        Semaphore woken = new Semaphore(0);
        WakeTimer timer = new WakeTimer(waitingUntil::get, woken::release, "test loop");
        try {
            int wakeups = 0;
            boolean compiled = false;
            while (!compiled && wakeups < MAX_WAKEUPS) {
                for (int i = 0; i < 500; i++, wakeups++) {
                    long until = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(20);
                    waitingUntil.set(until);
                    timer.ensure(until);
                    assertThat(woken.tryAcquire(30, TimeUnit.SECONDS)).as("woken at its deadline").isTrue();
                    waitingUntil.set(Long.MAX_VALUE);
                }
                compiled = codeList().contains(PASS);
            }
            assertThat(compiled).as("the timer thread's pass compiled after %d wake-ups", wakeups).isTrue();
        } finally {
            timer.close();
        }
    }

    /** The JVM's compiled methods, as {@code jcmd PID Compiler.codelist} prints them. */
    private static String codeList() throws Exception {
        return (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerCodelist",
                new Object[] {null}, new String[] {String[].class.getName()});
    }
}
