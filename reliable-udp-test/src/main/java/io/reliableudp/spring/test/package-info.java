/**
 * Test support for applications that use reliable-udp: {@link io.reliableudp.spring.test.InMemoryReliableUdp}
 * starts every node of a Spring test on one {@link io.reliableudp.spring.test.ReliableUdpTestNetwork} (the
 * core's in-memory datagram network: the real handshake, encryption and channels, no sockets), and
 * {@link io.reliableudp.spring.test.ReliableUdpTestUtils} reads bound ports and waits for connections.
 */
@NullMarked
package io.reliableudp.spring.test;

import org.jspecify.annotations.NullMarked;
