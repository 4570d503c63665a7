package io.reliableudp.spring.observation;

import io.micrometer.common.KeyValues;
import io.reliableudp.spring.support.InboundUdpMessage;

/** The default names and tags of listener observations. */
public class DefaultReliableUdpListenerObservationConvention implements ReliableUdpListenerObservationConvention {

    /** A shared instance. */
    public static final DefaultReliableUdpListenerObservationConvention INSTANCE = new DefaultReliableUdpListenerObservationConvention();

    @Override
    public String getContextualName(ReliableUdpReceiverContext context) {
        return context.getMessage().channel().name() + " process";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(ReliableUdpReceiverContext context) {
        InboundUdpMessage m = context.getMessage();
        return KeyValues.of(
                ReliableUdpObservation.ListenerLowCardinalityTags.CHANNEL.withValue(m.channel().name()),
                ReliableUdpObservation.ListenerLowCardinalityTags.LISTENER_ID.withValue(context.getListenerId()),
                ReliableUdpObservation.ListenerLowCardinalityTags.PEER.withValue(m.peerName() != null ? m.peerName() : ReliableUdpObservation.UNKNOWN_PEER));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(ReliableUdpReceiverContext context) {
        InboundUdpMessage m = context.getMessage();
        return KeyValues.of(
                ReliableUdpObservation.HighCardinalityTags.PEER_ADDRESS.withValue(m.address().toString()),
                ReliableUdpObservation.HighCardinalityTags.MESSAGE_ID.withValue(Integer.toString(m.messageId())));
    }
}
