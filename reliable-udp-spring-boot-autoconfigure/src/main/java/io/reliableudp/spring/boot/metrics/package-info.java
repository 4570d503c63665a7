/**
 * Micrometer metrics of reliable-UDP nodes: per node, per peer (named from configuration, else
 * {@code other}) and per channel. See {@code docs/metrics.md} for the catalogue.
 */
@NullMarked
package io.reliableudp.spring.boot.metrics;

import org.jspecify.annotations.NullMarked;
