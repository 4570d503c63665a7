/** The {@code handshakes} subcommand: how many handshakes per second a node completes, by security mode. */
package io.reliableudp.bench.handshake;
