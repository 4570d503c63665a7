/**
 * Spring Integration adapters and the ReliableUdp DSL entry point.
 */
@NullMarked
package io.reliableudp.spring.integration;

import org.jspecify.annotations.NullMarked;
