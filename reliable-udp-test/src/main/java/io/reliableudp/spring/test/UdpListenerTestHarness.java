package io.reliableudp.spring.test;

import io.reliableudp.spring.annotation.UdpMessageListener;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationAttributes;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Captures the invocations of {@code @UdpMessageListener} methods by listener id, and can put a Mockito
 * spy between the container and the listener bean (as Spring AMQP's {@code RabbitListenerTestHarness});
 * enabled with {@link UdpListenerTest}. Only listeners with an {@code id} are captured and spied.
 *
 * <p>How: a bean post-processor ordered before the listener annotation's wraps each bean that has
 * listener methods in a class-based proxy (or adds its advice to the bean's existing proxy), so the
 * container's endpoint invokes the method through it. Nothing in the listener or container changes;
 * the bean's own class must be proxyable (not final, listener methods not private nor final). Each
 * listener keeps at most {@value #CAPACITY} invocations not yet taken and counts what it drops.
 */
public final class UdpListenerTestHarness implements BeanPostProcessor, Ordered, BeanFactoryAware {

    /** Bean name of the harness. */
    public static final String BEAN_NAME = "reliableUdpListenerTestHarness";

    /** Invocations kept per listener and not yet taken. */
    public static final int CAPACITY = 1_000;

    /**
     * One invocation of a listener method.
     *
     * @param listenerId the listener's id
     * @param arguments the arguments it was called with (payload, headers, ... as the method declares them)
     * @param result what it returned (null for void or null)
     * @param exception what it threw, else null
     */
    public record InvocationData(String listenerId, List<@Nullable Object> arguments, @Nullable Object result,
            @Nullable Throwable exception) {
    }

    private final boolean capture;
    private final boolean spy;
    private final Map<String, BlockingQueue<InvocationData>> invocations = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> dropped = new ConcurrentHashMap<>();
    private final Map<String, Object> spies = new ConcurrentHashMap<>();
    private @Nullable ConfigurableBeanFactory beanFactory;

    /**
     * Creates the harness (the {@link UdpListenerTest} annotation registers it).
     *
     * @param capture whether invocations are captured
     * @param spy whether the listener beans are spied with Mockito
     */
    public UdpListenerTestHarness(boolean capture, boolean spy) {
        this.capture = capture;
        this.spy = spy;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE - 1;   // before the listener annotation's post-processor (the lowest)
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory instanceof ConfigurableBeanFactory cbf ? cbf : null;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        if (!AnnotationUtils.isCandidateClass(targetClass, UdpMessageListener.class)) {
            return bean;
        }
        Map<Method, UdpMessageListener> methods = MethodIntrospector.selectMethods(targetClass,
                (MethodIntrospector.MetadataLookup<UdpMessageListener>) m -> AnnotatedElementUtils.findMergedAnnotation(m, UdpMessageListener.class));
        Map<Method, String> ids = new ConcurrentHashMap<>();
        methods.forEach((method, annotation) -> {
            String id = resolve(annotation.id());
            if (StringUtils.hasText(id)) {
                ids.put(method, id);
                invocations.putIfAbsent(id, new ArrayBlockingQueue<>(CAPACITY));
                dropped.putIfAbsent(id, new AtomicLong());
            }
        });
        if (ids.isEmpty()) {
            return bean;
        }
        Object target = bean instanceof Advised advised ? advisedTarget(advised, bean) : bean;
        Object delegate = spy ? MockitoSpies.spy(target) : null;
        if (delegate != null) {
            ids.values().forEach(id -> spies.put(id, delegate));
        }
        MethodInterceptor interceptor = new Capturing(ids, targetClass, delegate);
        if (bean instanceof Advised advised && !advised.isFrozen()) {
            advised.addAdvice(0, interceptor);
            return bean;
        }
        ProxyFactory factory = new ProxyFactory(bean);
        factory.setProxyTargetClass(true);
        factory.addAdvice(interceptor);
        return factory.getProxy(ClassUtils.getDefaultClassLoader());
    }

    /**
     * Waits for the next invocation of a listener.
     *
     * @param listenerId the listener's id
     * @param timeout how long to wait
     * @return the invocation (arguments, result or exception)
     * @throws AssertionError when it was not invoked in time, or no listener has that id
     * @throws InterruptedException when interrupted while waiting
     */
    public InvocationData nextInvocation(String listenerId, Duration timeout) throws InterruptedException {
        BlockingQueue<InvocationData> queue = queue(listenerId);
        if (!capture) {
            throw new IllegalStateException("capture is off (@UdpListenerTest(capture = false))");
        }
        InvocationData data = queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        if (data == null) {
            long lost = dropped.get(listenerId).get();
            throw new AssertionError("listener '" + listenerId + "' was not invoked within " + timeout
                    + (lost > 0 ? " (" + lost + " earlier invocations were dropped: more than " + CAPACITY + " not taken)" : ""));
        }
        return data;
    }

    /**
     * The Mockito spy the container calls instead of the listener bean ({@code @UdpListenerTest(spy = true)}):
     * {@code verify(harness.getSpy("positions")).onPosition(any(), any())}, or {@code doThrow(...)} to make it fail.
     *
     * @param listenerId the listener's id
     * @param <T> the bean type
     * @return the spy
     * @throws IllegalStateException when spying is off or no listener has that id
     */
    @SuppressWarnings("unchecked")
    public <T> T getSpy(String listenerId) {
        Object s = spies.get(listenerId);
        if (s == null) {
            throw new IllegalStateException(spy ? "no listener with id '" + listenerId + "' (listeners with an id: " + invocations.keySet() + ")"
                    : "spying is off (@UdpListenerTest(spy = true))");
        }
        return (T) s;
    }

    /** Discards the invocations captured and not taken (e.g. between tests sharing a context). */
    public void clear() {
        invocations.values().forEach(BlockingQueue::clear);
    }

    private BlockingQueue<InvocationData> queue(String listenerId) {
        BlockingQueue<InvocationData> queue = invocations.get(listenerId);
        if (queue == null) {
            throw new AssertionError("no @UdpMessageListener with id '" + listenerId + "' (listeners with an id: " + invocations.keySet() + ")");
        }
        return queue;
    }

    private String resolve(String value) {
        ConfigurableBeanFactory bf = beanFactory;
        String resolved = bf == null ? value : bf.resolveEmbeddedValue(value);
        return resolved == null ? "" : resolved;
    }

    private static Object advisedTarget(Advised advised, Object bean) {
        try {
            Object target = advised.getTargetSource().getTarget();
            return target != null ? target : bean;
        } catch (Exception e) {
            return bean;
        }
    }

    /** Records each invocation of an identified listener method; calls the spy instead of the bean when there is one. */
    private final class Capturing implements MethodInterceptor {

        private final Map<Method, String> ids;
        private final Class<?> targetClass;
        private final @Nullable Object delegate;

        Capturing(Map<Method, String> ids, Class<?> targetClass, @Nullable Object delegate) {
            this.ids = ids;
            this.targetClass = targetClass;
            this.delegate = delegate;
        }

        @Override
        public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
            Method method = invocation.getMethod();
            String id = ids.get(method);
            if (id == null) {
                id = ids.get(ClassUtils.getMostSpecificMethod(method, targetClass));
            }
            if (id == null) {
                return invocation.proceed();
            }
            List<@Nullable Object> args = Collections.unmodifiableList(new ArrayList<>(Arrays.asList(invocation.getArguments())));
            try {
                Object result = delegate != null
                        ? AopUtils.invokeJoinpointUsingReflection(delegate, method, invocation.getArguments())
                        : invocation.proceed();
                record(new InvocationData(id, args, result, null));
                return result;
            } catch (Throwable e) {
                record(new InvocationData(id, args, null, e));
                throw e;
            }
        }

        private void record(InvocationData data) {
            if (capture && !Objects.requireNonNull(invocations.get(data.listenerId())).offer(data)) {
                Objects.requireNonNull(dropped.get(data.listenerId())).incrementAndGet();
            }
        }
    }

    /** Mockito only when spying is asked for (it is an optional dependency). */
    private static final class MockitoSpies {
        static Object spy(Object bean) {
            if (!ClassUtils.isPresent("org.mockito.Mockito", UdpListenerTestHarness.class.getClassLoader())) {
                throw new IllegalStateException("@UdpListenerTest(spy = true) needs Mockito on the test class path");
            }
            return org.mockito.Mockito.spy(bean);
        }
    }

    /** Registers the harness for {@link UdpListenerTest} on a configuration class, and for the test class's context customizer. */
    static final class Registrar implements ImportBeanDefinitionRegistrar {

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AnnotationAttributes attributes = AnnotationAttributes.fromMap(metadata.getAnnotationAttributes(UdpListenerTest.class.getName()));
            register(registry, attributes == null || attributes.getBoolean("capture"), attributes != null && attributes.getBoolean("spy"));
        }

        static void register(BeanDefinitionRegistry registry, boolean capture, boolean spy) {
            if (registry.containsBeanDefinition(BEAN_NAME)) {
                return;
            }
            RootBeanDefinition bd = new RootBeanDefinition(UdpListenerTestHarness.class);
            bd.getConstructorArgumentValues().addIndexedArgumentValue(0, capture);
            bd.getConstructorArgumentValues().addIndexedArgumentValue(1, spy);
            bd.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
            registry.registerBeanDefinition(BEAN_NAME, bd);
        }
    }
}
