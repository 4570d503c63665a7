package io.reliableudp.spring.observation;

import io.micrometer.common.KeyValues;
import io.reliableudp.spring.support.SendResult;

/** The default names and tags of send observations. */
public class DefaultReliableUdpTemplateObservationConvention implements ReliableUdpTemplateObservationConvention {

    /** A shared instance. */
    public static final DefaultReliableUdpTemplateObservationConvention INSTANCE = new DefaultReliableUdpTemplateObservationConvention();

    @Override
    public String getContextualName(ReliableUdpSenderContext context) {
        return context.getChannel().name() + " send";
    }

    @Override
    public KeyValues getLowCardinalityKeyValues(ReliableUdpSenderContext context) {
        SendResult r = context.getResult();
        return KeyValues.of(
                ReliableUdpObservation.TemplateLowCardinalityTags.CHANNEL.withValue(context.getChannel().name()),
                ReliableUdpObservation.TemplateLowCardinalityTags.DELIVERY_MODE.withValue(context.getChannel().mode().name()),
                ReliableUdpObservation.TemplateLowCardinalityTags.PEER.withValue(
                        r != null && r.peerName() != null ? r.peerName() : ReliableUdpObservation.UNKNOWN_PEER));
    }

    @Override
    public KeyValues getHighCardinalityKeyValues(ReliableUdpSenderContext context) {
        SendResult r = context.getResult();
        if (r == null) {
            return KeyValues.of(ReliableUdpObservation.HighCardinalityTags.PEER_ADDRESS.withValue(context.getPeer()));
        }
        return KeyValues.of(
                ReliableUdpObservation.HighCardinalityTags.PEER_ADDRESS.withValue(r.peerAddress().toString()),
                ReliableUdpObservation.HighCardinalityTags.MESSAGE_ID.withValue(Integer.toString(r.messageId())));
    }
}
