package io.reliableudp.spring.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and tags of listener observations; implement to change them. */
public interface ReliableUdpListenerObservationConvention extends ObservationConvention<ReliableUdpReceiverContext> {

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof ReliableUdpReceiverContext;
    }

    @Override
    default String getName() {
        return "reliable.udp.process";
    }
}
