/** The soak subcommand: millions of reliable-ordered messages through a bad link, checked one by one, heap watched. */
package io.reliableudp.bench.soak;
