package io.reliableudp.spring.untrusted;

/**
 * A payload type of a package the request/reply tests' server does not trust: sent by class name, it is
 * refused before any listener sees it.
 *
 * @param base the base
 */
public record Triangle(double base) {
}
