package io.reliableudp.demo.node;

import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.ReplyingReliableUdpTemplate;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/** A rover's application (one child context, one node, connecting to its named peer {@code station}). */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration(excludeName = NodeApplications.EXCLUDED)
public class RoverNode {

    /** What the rover sends, driven by the web application's traffic thread. */
    @Bean
    RoverDriver roverDriver(ReliableUdpTemplate template, ReplyingReliableUdpTemplate requests, Ledger ledger, Environment env) {
        return new RoverDriver(template, requests, ledger, env.getRequiredProperty("demo.rover.name"),
                env.getRequiredProperty("demo.rover.epoch", Integer.class));
    }
}
