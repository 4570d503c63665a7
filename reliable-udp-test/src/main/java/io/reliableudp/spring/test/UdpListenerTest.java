package io.reliableudp.spring.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.context.annotation.Import;

/**
 * Adds the {@link UdpListenerTestHarness} to a test's context, as Spring AMQP's {@code @RabbitListenerTest}
 * does: every {@code @UdpMessageListener} with an {@code id} gets its invocations captured (arguments,
 * return value or exception) and, with {@link #spy()}, its bean replaced in the container by a Mockito spy,
 * to verify calls or make a listener fail. Put it on the test class (as {@link InMemoryReliableUdp}) or on
 * a {@code @Configuration} of the test.
 *
 * <pre>{@code
 * @SpringBootTest
 * @InMemoryReliableUdp
 * @UdpListenerTest
 * class StationTests {
 *     @Autowired UdpListenerTestHarness harness;
 *
 *     @Test
 *     void answers() throws Exception {
 *         ... send a Position to the station ...
 *         UdpListenerTestHarness.InvocationData call = harness.nextInvocation("positions", Duration.ofSeconds(10));
 *         assertThat(call.arguments().getFirst()).isEqualTo(new Position(1, 2.5, -1.0));
 *         assertThat(call.result()).isInstanceOf(Ack.class);
 *     }
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@Import(UdpListenerTestHarness.Registrar.class)
public @interface UdpListenerTest {

    /** Whether invocations are captured by listener id ({@link UdpListenerTestHarness#nextInvocation}). */
    boolean capture() default true;

    /** Whether the container calls a Mockito spy of the listener bean ({@link UdpListenerTestHarness#getSpy}); needs Mockito. */
    boolean spy() default false;
}
