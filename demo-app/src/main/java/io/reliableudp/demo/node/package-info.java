/**
 * The demo's nodes: the station's and the rovers' Spring Boot applications (one child context and one
 * reliable-udp node each), their typed events and the ledger that checks every reliable message.
 */
@NullMarked
package io.reliableudp.demo.node;

import org.jspecify.annotations.NullMarked;
