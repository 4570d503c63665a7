package io.reliableudp.spring.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the reliable-udp node of a Spring test ({@code @SpringBootTest}, {@code @SpringJUnitConfig})
 * on the in-memory network {@link ReliableUdpTestNetwork#shared()} instead of a UDP socket, as
 * {@code @EmbeddedKafka} gives a test its broker: the whole protocol stack runs, nothing leaves the
 * JVM, ports are taken from the network, not the host. The test context gets two beans:
 * {@code reliableUdpTestNetwork} (the {@link ReliableUdpTestNetwork}, to condition links) and
 * {@code reliableUdpNodeFactory} (which the auto-configuration uses instead of binding a socket).
 * Several contexts started in one JVM (a server and a client) reach each other by
 * {@code 127.0.0.1:port}; read the port with {@link ReliableUdpTestUtils#boundPort}.
 *
 * <pre>{@code
 * @SpringBootTest(properties = "reliable-udp.port=0")
 * @InMemoryReliableUdp
 * class StationTests {
 *     @Autowired ManagedReliableUdpNode node;
 *     @Autowired ReliableUdpTestNetwork network;
 * }
 * }</pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface InMemoryReliableUdp {
}
