package io.reliableudp.spring.annotation;

import io.reliableudp.spring.listener.UdpListenerEndpointRegistry;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/** Registers the listener post-processor and the endpoint registry, once. */
public class UdpListenerBootstrapConfiguration implements ImportBeanDefinitionRegistrar {

    @Override
    public void registerBeanDefinitions(AnnotationMetadata importingClassMetadata, BeanDefinitionRegistry registry) {
        if (!registry.containsBeanDefinition(UdpListenerConfigUtils.LISTENER_ANNOTATION_PROCESSOR_BEAN_NAME)) {
            RootBeanDefinition bd = new RootBeanDefinition(UdpListenerAnnotationBeanPostProcessor.class);
            bd.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
            registry.registerBeanDefinition(UdpListenerConfigUtils.LISTENER_ANNOTATION_PROCESSOR_BEAN_NAME, bd);
        }
        if (!registry.containsBeanDefinition(UdpListenerConfigUtils.LISTENER_ENDPOINT_REGISTRY_BEAN_NAME)) {
            RootBeanDefinition bd = new RootBeanDefinition(UdpListenerEndpointRegistry.class);
            bd.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
            registry.registerBeanDefinition(UdpListenerConfigUtils.LISTENER_ENDPOINT_REGISTRY_BEAN_NAME, bd);
        }
    }
}
