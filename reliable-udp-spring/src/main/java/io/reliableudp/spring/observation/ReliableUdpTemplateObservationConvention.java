package io.reliableudp.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and tags of send observations; implement to change them. */
public interface ReliableUdpTemplateObservationConvention extends ObservationConvention<ReliableUdpSenderContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof ReliableUdpSenderContext;
    }

    @Override
    default String getName() {
        return "reliable.udp.send";
    }
}
