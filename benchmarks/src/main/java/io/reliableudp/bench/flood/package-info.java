/** The {@code flood} subcommand: a real pair under a garbage flood, and its child-JVM peers. */
package io.reliableudp.bench.flood;
