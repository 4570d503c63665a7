/**
 * The demo's web application: the fleet of node contexts, the page's state and controls, the TCP lane.
 */
@NullMarked
package io.reliableudp.demo.web;

import org.jspecify.annotations.NullMarked;
