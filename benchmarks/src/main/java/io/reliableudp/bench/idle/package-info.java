/** The {@code idle} subcommand: the CPU an idle node with many connections costs, measured from {@code /proc} of a child JVM. */
package io.reliableudp.bench.idle;
