/**
 * The benchmark toolkit shared by every subcommand: options, load average, child processes and JVMs,
 * latency percentiles, tables, the JSON result line and the PNG plot.
 */
package io.reliableudp.bench.kit;
