package io.reliableudp.spring.cloud;

import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * Test support: the application that sends to the "orders" service (reliable-udp.peers.orders.service-id),
 * as an application would configure it; each test adds its discovery client's properties.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
class ClientApp {

    static ConfigurableApplicationContext start(String... properties) {
        return start(ClientApp.class, properties);
    }

    static ConfigurableApplicationContext start(Class<?> app, String... properties) {
        List<String> all = new ArrayList<>(List.of(
                "spring.main.banner-mode=off",
                "spring.application.name=orders-client",
                "reliable-udp.bind-address=127.0.0.1",
                "reliable-udp.port=0",
                "reliable-udp.connect-timeout=1s",
                "reliable-udp.drain-timeout=1s",
                "reliable-udp.peers.orders.service-id=orders",
                "reliable-udp.discovery.refresh-interval=300ms",
                "reliable-udp.discovery.drain-timeout=2s",
                "management.metrics.enable.all=true"));
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(app).web(WebApplicationType.NONE)
                .properties(all.toArray(String[]::new)).run();
    }
}
