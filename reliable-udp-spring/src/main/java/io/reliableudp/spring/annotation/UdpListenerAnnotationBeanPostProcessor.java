package io.reliableudp.spring.annotation;

import io.reliableudp.spring.listener.MethodUdpListenerEndpoint;
import io.reliableudp.spring.support.ReliableUdpMessageConverters;
import io.reliableudp.spring.listener.UdpListenerContainerFactory;
import io.reliableudp.spring.listener.UdpListenerEndpointRegistry;
import io.reliableudp.spring.listener.UdpListenerErrorHandler;
import io.reliableudp.spring.listener.UdpListenerErrorHandlers;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.messaging.MessageChannel;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.util.StringUtils;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;
import org.springframework.validation.Validator;

/**
 * Finds {@link UdpMessageListener} methods on beans and registers one listener container per method in
 * the {@link UdpListenerEndpointRegistry}, once every singleton exists (so container factories, error
 * handlers and converters may be ordinary beans). Attribute values go through placeholder resolution
 * ({@code ${...}}) and bean expressions ({@code #{...}}).
 */
public class UdpListenerAnnotationBeanPostProcessor implements BeanPostProcessor, Ordered, BeanFactoryAware, SmartInitializingSingleton {

    private final AtomicInteger counter = new AtomicInteger();
    private final List<MethodUdpListenerEndpoint> endpoints = new ArrayList<>();
    private final Map<MethodUdpListenerEndpoint, String> factoryNames = new ConcurrentHashMap<>();
    private final Map<MethodUdpListenerEndpoint, String> errorHandlerNames = new ConcurrentHashMap<>();
    private final Map<MethodUdpListenerEndpoint, String> deadLetterNames = new ConcurrentHashMap<>();
    private final Map<MethodUdpListenerEndpoint, String> backOffNames = new ConcurrentHashMap<>();
    private final Set<Class<?>> nonAnnotatedClasses = ConcurrentHashMap.newKeySet();
    private @Nullable BeanFactory beanFactory;
    private @Nullable BeanExpressionContext expressionContext;

    @Override
    public int getOrder() {
        return LOWEST_PRECEDENCE;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
        if (beanFactory instanceof ConfigurableBeanFactory cbf) {
            this.expressionContext = new BeanExpressionContext(cbf, null);
        }
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        if (nonAnnotatedClasses.contains(targetClass) || !AnnotationUtils.isCandidateClass(targetClass, UdpMessageListener.class)) {
            return bean;
        }
        Map<Method, UdpMessageListener> methods = MethodIntrospector.selectMethods(targetClass,
                (MethodIntrospector.MetadataLookup<UdpMessageListener>) m -> AnnotatedElementUtils.findMergedAnnotation(m, UdpMessageListener.class));
        if (methods.isEmpty()) {
            nonAnnotatedClasses.add(targetClass);
            return bean;
        }
        methods.forEach((method, annotation) -> {
            Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
            synchronized (endpoints) {
                endpoints.add(createEndpoint(bean, invocable, annotation));
            }
        });
        return bean;
    }

    private MethodUdpListenerEndpoint createEndpoint(Object bean, Method method, UdpMessageListener annotation) {
        MethodUdpListenerEndpoint endpoint = new MethodUdpListenerEndpoint(bean, method);
        String id = resolve(annotation.id());
        endpoint.setId(StringUtils.hasText(id) ? id : "io.reliableudp.spring.UdpListenerEndpointContainer#" + counter.getAndIncrement());
        endpoint.setChannels(resolveAll(annotation.channels()));
        endpoint.setPeers(resolveAll(annotation.peers()));
        String autoStartup = resolve(annotation.autoStartup());
        if (StringUtils.hasText(autoStartup)) {
            if (!autoStartup.equalsIgnoreCase("true") && !autoStartup.equalsIgnoreCase("false")) {
                throw new BeanInitializationException("@UdpMessageListener " + method + ": autoStartup must be true or false, was '" + autoStartup + "'");
            }
            endpoint.setAutoStartup(Boolean.parseBoolean(autoStartup));
        }
        String errorHandler = resolve(annotation.errorHandler());
        if (StringUtils.hasText(errorHandler)) {
            // looked up once every singleton exists: the handler may depend on the listener bean
            errorHandlerNames.put(endpoint, errorHandler);
        }
        String deadLetter = resolve(annotation.deadLetterChannel());
        if (StringUtils.hasText(deadLetter)) {
            if (StringUtils.hasText(errorHandler)) {
                throw new BeanInitializationException("@UdpMessageListener " + method + ": give errorHandler or deadLetterChannel, not both");
            }
            deadLetterNames.put(endpoint, deadLetter);
        }
        String concurrency = resolve(annotation.concurrency());
        if (StringUtils.hasText(concurrency)) {
            int n = parseInt(method, "concurrency", concurrency);
            if (n < 1) {
                throw new BeanInitializationException("@UdpMessageListener " + method + ": concurrency must be >= 1, was " + n);
            }
            endpoint.setConcurrency(n);
        }
        String backOff = resolve(annotation.backOff());
        String retries = resolve(annotation.retries());
        if (StringUtils.hasText(backOff)) {
            if (StringUtils.hasText(retries)) {
                throw new BeanInitializationException("@UdpMessageListener " + method + ": give retries or backOff, not both");
            }
            backOffNames.put(endpoint, backOff);
        } else if (StringUtils.hasText(retries)) {
            int n = parseInt(method, "retries", retries);
            if (n < 0) {
                throw new BeanInitializationException("@UdpMessageListener " + method + ": retries must be >= 0, was " + n);
            }
            endpoint.setBackOff(n == 0 ? new FixedBackOff(0, 0) : retryBackOff(method, n, resolve(annotation.retryDelay()),
                    resolve(annotation.retryMultiplier()), resolve(annotation.retryMaxDelay())));
        }
        SendTo sendTo = AnnotatedElementUtils.findMergedAnnotation(method, SendTo.class);
        if (sendTo != null && sendTo.value().length > 0 && StringUtils.hasText(sendTo.value()[0])) {
            endpoint.setReplyChannel(resolve(sendTo.value()[0]));
        }
        String factory = resolve(annotation.containerFactory());
        factoryNames.put(endpoint, StringUtils.hasText(factory) ? factory : UdpListenerConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME);
        return endpoint;
    }

    private static int parseInt(Method method, String attribute, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new BeanInitializationException("@UdpMessageListener " + method + ": " + attribute + " must be a number, was '" + value + "'");
        }
    }

    /** An exponential back off of at most {@code retries} attempts after the first. */
    private static BackOff retryBackOff(Method method, int retries, String delay, String multiplier, String maxDelay) {
        try {
            long initial = StringUtils.hasText(delay) ? parseDuration(delay).toMillis() : 100;
            double factor = StringUtils.hasText(multiplier) ? Double.parseDouble(multiplier.trim()) : 2.0;
            long max = StringUtils.hasText(maxDelay) ? parseDuration(maxDelay).toMillis() : 10_000;
            if (initial < 0 || factor < 1 || max < initial) {
                throw new IllegalArgumentException("need retryDelay >= 0, retryMultiplier >= 1, retryMaxDelay >= retryDelay");
            }
            ExponentialBackOff b = new ExponentialBackOff(initial, factor);
            b.setMaxInterval(max);
            b.setMaxAttempts(retries);
            return b;
        } catch (IllegalArgumentException e) {
            throw new BeanInitializationException("@UdpMessageListener " + method + ": bad retry settings: " + e.getMessage(), e);
        }
    }

    /**
     * Reads {@code 250ms}, {@code 2s}, {@code 1m} or ISO-8601 ({@code PT2S}).
     *
     * @param text the text
     * @return the duration
     * @throws IllegalArgumentException when it is none of those
     */
    static Duration parseDuration(String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        try {
            if (t.startsWith("p")) {
                return Duration.parse(text.trim());
            }
            if (t.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).trim()));
            }
            if (t.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(t.substring(0, t.length() - 1).trim()) * 1000));
            }
            if (t.endsWith("m")) {
                return Duration.ofSeconds(Math.round(Double.parseDouble(t.substring(0, t.length() - 1).trim()) * 60));
            }
            return Duration.ofMillis(Long.parseLong(t));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration (250ms, 2s, 1m, PT2S)");
        }
    }

    private List<String> resolveAll(String[] values) {
        List<String> out = new ArrayList<>();
        for (String v : values) {
            String r = resolve(v);
            for (String part : StringUtils.commaDelimitedListToStringArray(r)) {
                if (StringUtils.hasText(part)) {
                    out.add(part.trim());
                }
            }
        }
        return out;
    }

    private String resolve(String value) {
        BeanFactory bf = beanFactory;
        if (!(bf instanceof ConfigurableBeanFactory cbf)) {
            return value;
        }
        String resolved = cbf.resolveEmbeddedValue(value);
        if (resolved == null) {
            return "";
        }
        if (cbf.getBeanExpressionResolver() != null && expressionContext != null) {
            Object evaluated = cbf.getBeanExpressionResolver().evaluate(resolved, expressionContext);
            if (evaluated instanceof String[] arr) {
                return String.join(",", Arrays.asList(arr));
            }
            return evaluated == null ? "" : evaluated.toString();
        }
        return resolved;
    }

    private BeanFactory requireBeanFactory() {
        BeanFactory bf = beanFactory;
        if (bf == null) {
            throw new IllegalStateException("no BeanFactory");
        }
        return bf;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<MethodUdpListenerEndpoint> toRegister;
        synchronized (endpoints) {
            toRegister = List.copyOf(endpoints);
            endpoints.clear();
        }
        if (toRegister.isEmpty()) {
            return;
        }
        BeanFactory bf = requireBeanFactory();
        UdpListenerEndpointRegistry registry = bf.getBean(UdpListenerConfigUtils.LISTENER_ENDPOINT_REGISTRY_BEAN_NAME, UdpListenerEndpointRegistry.class);
        MessageHandlerMethodFactory methodFactory = methodFactory(bf);
        for (MethodUdpListenerEndpoint endpoint : toRegister) {
            String errorHandlerName = errorHandlerNames.remove(endpoint);
            if (errorHandlerName != null) {
                try {
                    endpoint.setErrorHandler(bf.getBean(errorHandlerName, UdpListenerErrorHandler.class));
                } catch (BeansException e) {
                    throw new BeanInitializationException("@UdpMessageListener " + endpoint.getMethod()
                            + " names the error handler '" + errorHandlerName + "': no UdpListenerErrorHandler bean has that name", e);
                }
            }
            String deadLetterName = deadLetterNames.remove(endpoint);
            if (deadLetterName != null) {
                try {
                    endpoint.setErrorHandler(UdpListenerErrorHandlers.deadLetter(bf.getBean(deadLetterName, MessageChannel.class)));
                } catch (BeansException e) {
                    throw new BeanInitializationException("@UdpMessageListener " + endpoint.getMethod()
                            + " names the dead-letter channel '" + deadLetterName + "': no MessageChannel bean has that name", e);
                }
            }
            String backOffName = backOffNames.remove(endpoint);
            if (backOffName != null) {
                try {
                    endpoint.setBackOff(bf.getBean(backOffName, BackOff.class));
                } catch (BeansException e) {
                    throw new BeanInitializationException("@UdpMessageListener " + endpoint.getMethod()
                            + " names the back off '" + backOffName + "': no BackOff bean has that name", e);
                }
            }
            String factoryName = factoryNames.remove(endpoint);
            UdpListenerContainerFactory factory;
            try {
                factory = bf.getBean(factoryName, UdpListenerContainerFactory.class);
            } catch (BeansException e) {
                throw new BeanInitializationException("@UdpMessageListener " + endpoint.getMethod() + " needs a UdpListenerContainerFactory bean named '"
                        + factoryName + "' (add the reliable-udp starter, or declare one)", e);
            }
            try {
                registry.registerListenerContainer(endpoint, factory, methodFactory);
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw new BeanInitializationException("@UdpMessageListener " + endpoint.getMethod() + ": " + e.getMessage(), e);
            }
        }
    }

    private static MessageHandlerMethodFactory methodFactory(BeanFactory bf) {
        if (bf.containsBean(UdpListenerConfigUtils.MESSAGE_HANDLER_METHOD_FACTORY_BEAN_NAME)) {
            return bf.getBean(UdpListenerConfigUtils.MESSAGE_HANDLER_METHOD_FACTORY_BEAN_NAME, MessageHandlerMethodFactory.class);
        }
        DefaultMessageHandlerMethodFactory factory = new DefaultMessageHandlerMethodFactory();
        if (bf.containsBean(UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME)) {
            factory.setMessageConverter(bf.getBean(UdpListenerConfigUtils.MESSAGE_CONVERTER_BEAN_NAME, MessageConverter.class));
        } else {
            factory.setMessageConverter(ReliableUdpMessageConverters.createDefault());
        }
        if (bf instanceof ListableBeanFactory lbf) {
            Validator validator = lbf.getBeanProvider(Validator.class).getIfUnique();
            if (validator != null) {
                factory.setValidator(validator);
            }
        }
        factory.setCustomArgumentResolvers(List.of(new SenderAddressArgumentResolver()));
        factory.setBeanFactory(bf);
        factory.afterPropertiesSet();
        return factory;
    }
}
