/**
 * Peers from Spring Cloud service discovery: a peer name backed by a service id, its instances as a
 * {@link io.reliableudp.spring.core.UdpPeerGroup} (consistent hashing by key, balancing without),
 * refreshed on heartbeats and on a period, departed instances drained.
 */
@NullMarked
package io.reliableudp.spring.cloud;

import org.jspecify.annotations.NullMarked;
