/**
 * Message layer: channels with delivery modes, packing, resend, large messages, delivery futures, congestion avoidance. No I/O.
 */
@NullMarked
package io.reliableudp.message;

import org.jspecify.annotations.NullMarked;
