/**
 * Support types: message headers, the envelope codec carried inside each payload, the message mapper,
 * the values the other packages share (the channel, an inbound message, a send result, the
 * {@code host:port} parser) and the per-key serial executor. The lowest package of the Spring library:
 * it depends on no other package of it.
 */
@NullMarked
package io.reliableudp.spring.support;

import org.jspecify.annotations.NullMarked;
