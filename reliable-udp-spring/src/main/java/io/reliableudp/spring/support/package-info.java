/**
 * Support types: message headers, the envelope codec carried inside each payload, the per-key serial executor.
 */
@NullMarked
package io.reliableudp.spring.support;

import org.jspecify.annotations.NullMarked;
