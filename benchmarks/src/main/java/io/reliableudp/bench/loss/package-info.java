/**
 * The {@code loss} benchmark: delivery latency and bytes on the wire of a 60 Hz event stream through a
 * loopback that drops a share of packets (nftables in a network namespace), this library beside TCP, KCP and ENet.
 */
package io.reliableudp.bench.loss;
