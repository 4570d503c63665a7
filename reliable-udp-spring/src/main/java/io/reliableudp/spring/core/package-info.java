/**
 * The Spring-managed node, the template and its send results.
 */
@NullMarked
package io.reliableudp.spring.core;

import org.jspecify.annotations.NullMarked;
