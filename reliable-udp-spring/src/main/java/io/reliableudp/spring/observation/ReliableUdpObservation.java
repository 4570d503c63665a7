package io.reliableudp.spring.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/** The observations of reliable-udp, documented. */
public enum ReliableUdpObservation implements ObservationDocumentation {

    /** A template send, from the call until the peer acknowledged it (or it failed). */
    TEMPLATE_OBSERVATION {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultReliableUdpTemplateObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return TemplateLowCardinalityTags.values();
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return HighCardinalityTags.values();
        }
    },

    /** A listener invocation for one received message. */
    LISTENER_OBSERVATION {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultReliableUdpListenerObservationConvention.class;
        }

        @Override
        public KeyName[] getLowCardinalityKeyNames() {
            return ListenerLowCardinalityTags.values();
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return HighCardinalityTags.values();
        }
    };

    /**
     * The peer tag of every peer without a configured name: one bounded value, the same as the
     * {@code peer} tag of the meters.
     */
    public static final String UNKNOWN_PEER = "other";

    /** Low-cardinality keys of sends (bounded by configuration). */
    public enum TemplateLowCardinalityTags implements KeyName {
        /** The channel name. */
        CHANNEL { @Override public String asString() { return "reliable.udp.channel"; } },
        /** The channel's delivery mode. */
        DELIVERY_MODE { @Override public String asString() { return "reliable.udp.delivery.mode"; } },
        /** The configured peer name, or "other" (one value for every unnamed peer). */
        PEER { @Override public String asString() { return "reliable.udp.peer"; } }
    }

    /** Low-cardinality keys of listener invocations. */
    public enum ListenerLowCardinalityTags implements KeyName {
        /** The channel name. */
        CHANNEL { @Override public String asString() { return "reliable.udp.channel"; } },
        /** The listener id. */
        LISTENER_ID { @Override public String asString() { return "reliable.udp.listener.id"; } },
        /** The configured peer name, or "other" (one value for every unnamed peer). */
        PEER { @Override public String asString() { return "reliable.udp.peer"; } }
    }

    /** High-cardinality keys (only for tracing, never metric tags). */
    public enum HighCardinalityTags implements KeyName {
        /** The peer's address. */
        PEER_ADDRESS { @Override public String asString() { return "reliable.udp.peer.address"; } },
        /** The channel's message id. */
        MESSAGE_ID { @Override public String asString() { return "reliable.udp.message.id"; } }
    }
}
