/**
 * A seeded link conditioner (latency, jitter, loss, duplication, reordering, bandwidth cap) for tests, benchmarks and demos.
 */
@NullMarked
package io.reliableudp.link;

import org.jspecify.annotations.NullMarked;
