package io.reliableudp.spring.annotation;

import io.reliableudp.spring.support.ReliableUdpHeaders;
import java.net.InetSocketAddress;
import org.jspecify.annotations.Nullable;
import org.springframework.core.MethodParameter;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;

/** Resolves an un-annotated {@link InetSocketAddress} listener parameter to the sender's address. */
final class SenderAddressArgumentResolver implements HandlerMethodArgumentResolver {

    @Override
    public boolean supportsParameter(MethodParameter parameter) {
        return InetSocketAddress.class.equals(parameter.getParameterType())
                && !parameter.hasParameterAnnotation(Header.class) && !parameter.hasParameterAnnotation(Payload.class);
    }

    @Override
    public @Nullable Object resolveArgument(MethodParameter parameter, Message<?> message) {
        return message.getHeaders().get(ReliableUdpHeaders.PEER_ADDRESS);
    }
}
