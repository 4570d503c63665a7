package io.reliableudp.spring.listener;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Objects;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;

/**
 * An endpoint around a bean method: arguments are resolved by a {@link MessageHandlerMethodFactory}
 * ({@code @Payload} converted to the parameter type and validated, {@code @Header}, {@code @Headers},
 * {@code Message<?>}, the sender's {@link java.net.InetSocketAddress}); the return value is the reply.
 */
public class MethodUdpListenerEndpoint extends AbstractUdpListenerEndpoint {

    private final Object bean;
    private final Method method;

    /**
     * Creates the endpoint.
     *
     * @param bean the bean
     * @param method the listener method
     */
    public MethodUdpListenerEndpoint(Object bean, Method method) {
        this.bean = Objects.requireNonNull(bean, "bean");
        this.method = Objects.requireNonNull(method, "method");
    }

    /** The bean. */
    public Object getBean() {
        return bean;
    }

    /** The listener method. */
    public Method getMethod() {
        return method;
    }

    @Override
    public UdpMessageHandler createHandler(MessageHandlerMethodFactory factory) {
        InvocableHandlerMethod invocable = factory.createInvocableHandlerMethod(bean, method);
        boolean returnsVoid = method.getReturnType() == void.class;
        return message -> {
            try {
                Object result = invocable.invoke(message);
                return returnsVoid ? null : result;
            } catch (InvocationTargetException e) {
                Throwable cause = e.getTargetException();
                if (cause instanceof Exception ex) {
                    throw ex;
                }
                throw e;
            }
        };
    }

    @Override
    public String toString() {
        return "MethodUdpListenerEndpoint[" + getId() + ": " + method.getDeclaringClass().getSimpleName() + "." + method.getName() + "]";
    }
}
