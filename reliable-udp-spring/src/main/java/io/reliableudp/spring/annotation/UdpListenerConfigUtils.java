package io.reliableudp.spring.annotation;

/** Bean names of the listener infrastructure. */
public final class UdpListenerConfigUtils {

    /** The annotation bean post-processor. */
    public static final String LISTENER_ANNOTATION_PROCESSOR_BEAN_NAME = "io.reliableudp.spring.internalUdpListenerAnnotationProcessor";

    /** The endpoint registry. */
    public static final String LISTENER_ENDPOINT_REGISTRY_BEAN_NAME = "io.reliableudp.spring.internalUdpListenerEndpointRegistry";

    /** The default container factory. */
    public static final String DEFAULT_CONTAINER_FACTORY_BEAN_NAME = "udpListenerContainerFactory";

    /** An optional {@link org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory}. */
    public static final String MESSAGE_HANDLER_METHOD_FACTORY_BEAN_NAME = "udpMessageHandlerMethodFactory";

    /** The payload converter (a spring-messaging {@code MessageConverter}). */
    public static final String MESSAGE_CONVERTER_BEAN_NAME = "reliableUdpMessageConverter";

    private UdpListenerConfigUtils() {
    }
}
