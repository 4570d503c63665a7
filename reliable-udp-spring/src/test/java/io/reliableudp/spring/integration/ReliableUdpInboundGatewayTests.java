package io.reliableudp.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.core.ReplyingReliableUdpTemplate;
import io.reliableudp.spring.core.RemoteListenerException;
import io.reliableudp.spring.listener.ListenerTestApp;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import io.reliableudp.spring.testapp.AppPair;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.dsl.IntegrationFlow;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessagingException;
import org.springframework.messaging.support.MessageBuilder;

/**
 * {@code ReliableUdp.inboundGateway}: a request from another application's template reaches a flow,
 * and the flow's reply goes back to the requester; the cases of no reply, a failing flow with and
 * without an error channel, and one-way messages.
 */
@Timeout(60)
class ReliableUdpInboundGatewayTests {

    record Order(String id, int quantity) {
    }

    record Quote(String orderId, double price) {
    }

    private AppPair<AnnotationConfigApplicationContext> apps;
    private ReplyingReliableUdpTemplate template;

    private static ListenerTestApp app() {
        return new ListenerTestApp().channel("quotes", DeliveryMode.RELIABLE_ORDERED).channel("guarded", DeliveryMode.RELIABLE_ORDERED)
                .channel("silent", DeliveryMode.RELIABLE_ORDERED).channel("strict", DeliveryMode.RELIABLE_ORDERED)
                .inboundHeaders("tenant", "priced-by");
    }

    @BeforeEach
    void startBoth() {
        apps = ListenerTestApp.startPair(ReliableUdpInboundGatewayTests::app, ServerFlows.class);
        template = new ReplyingReliableUdpTemplate(apps.client().getBean(ReliableUdpTemplate.class));
    }

    @AfterEach
    void close() {
        if (apps != null) {
            apps.close();
        }
    }

    @Test
    void theRequesterGetsTheFlowsReplyWithTheHeadersTheFlowAdded() throws Exception {
        Message<?> reply = template.sendAndReceive(MessageBuilder.withPayload(new Order("o1", 2)).setHeader("tenant", "acme")
                .setHeader(ReliableUdpHeaders.PEER, "server").setHeader(ReliableUdpHeaders.SEND_CHANNEL, "quotes").build(),
                Quote.class, null).get(10, TimeUnit.SECONDS);
        assertThat(reply).isNotNull();
        assertThat(reply.getPayload()).isEqualTo(new Quote("o1", 3.0));
        assertThat(reply.getHeaders()).containsEntry("priced-by", "desk-acme")
                .doesNotContainKey("tenant");   // the request's own header is not echoed
        for (int i = 1; i <= 3; i++) {
            assertThat(template.sendAndReceive("server", "quotes", new Order("q" + i, i), Quote.class).get(10, TimeUnit.SECONDS))
                    .isEqualTo(new Quote("q" + i, i * 1.5));
        }
    }

    @Test
    void aFlowWithoutAReplyAnswersEmptyOrWithAnErrorWhenTheGatewaySaysItMustReply() throws Exception {
        assertThat(template.sendAndReceive("server", "silent", new Order("s", 1), Quote.class).get(10, TimeUnit.SECONDS)).isNull();
        assertThat(apps.server().getBean(ServerFlows.class).silentSeen).isEqualTo(1);
        assertThat(template.sendAndReceive("server", "strict", new Order("s", 1), Quote.class)).failsWithin(Duration.ofSeconds(10))
                .withThrowableThat().havingCause().isInstanceOfSatisfying(RemoteListenerException.class,
                        e -> assertThat(e.category()).isEqualTo(RemoteListenerException.Category.LISTENER_FAILED));
    }

    @Test
    void aFailingFlowAnswersThroughItsErrorChannelOrWithAnErrorReply() throws Exception {
        assertThat(template.sendAndReceive("server", "guarded", new Order("g", -1), String.class).get(10, TimeUnit.SECONDS))
                .isEqualTo("sorry: negative quantity -1");
        assertThat(template.sendAndReceive("server", "quotes", new Order("bad", -1), Quote.class)).failsWithin(Duration.ofSeconds(10))
                .withThrowableThat().havingCause().isInstanceOfSatisfying(RemoteListenerException.class, e -> {
                    assertThat(e.category()).isEqualTo(RemoteListenerException.Category.LISTENER_FAILED);
                    assertThat(e.remoteMessage()).isEmpty();   // no details without errorReplyDetails
                });
        // the gateway goes on
        assertThat(template.sendAndReceive("server", "quotes", new Order("after", 2), Quote.class).get(10, TimeUnit.SECONDS))
                .isEqualTo(new Quote("after", 3.0));
    }

    @Test
    void aOneWayMessageGoesIntoTheFlowWithoutWaiting() throws Exception {
        assertThat(template.getTemplate().send("server", "silent", new Order("one-way", 1)).get(10, TimeUnit.SECONDS).acknowledged()).isTrue();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> apps.server().getBean(ServerFlows.class).silentSeen == 1);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIntegration
    static class ServerFlows {

        volatile int silentSeen;

        private static Quote price(Order order) {
            if (order.quantity() < 0) {
                throw new IllegalArgumentException("negative quantity " + order.quantity());
            }
            return new Quote(order.id(), order.quantity() * 1.5);
        }

        @Bean
        IntegrationFlow quoting(ManagedReliableUdpNode node) {
            return IntegrationFlow.from(ReliableUdp.inboundGateway(node).channels("quotes").payloadType(Order.class))
                    .handle(Order.class, (order, headers) -> MessageBuilder.withPayload(price(order))
                            .setHeader("priced-by", "desk-" + headers.get("tenant")).build())
                    .get();
        }

        @Bean
        IntegrationFlow guarded(ManagedReliableUdpNode node) {
            return IntegrationFlow.from(ReliableUdp.inboundGateway(node).channels("guarded").payloadType(Order.class)
                            .errorChannel("guardFailures"))
                    .handle(Order.class, (order, headers) -> price(order))
                    .get();
        }

        @Bean
        IntegrationFlow apologies() {
            return IntegrationFlow.from("guardFailures")
                    .handle(MessagingException.class, (e, headers) -> "sorry: " + e.getCause().getMessage())
                    .get();
        }

        @Bean
        IntegrationFlow silent(ManagedReliableUdpNode node) {
            return IntegrationFlow.from(ReliableUdp.inboundGateway(node).channels("silent").payloadType(Order.class).replyTimeout(300))
                    .handle(m -> silentSeen++)
                    .get();
        }

        @Bean
        IntegrationFlow strict(ManagedReliableUdpNode node) {
            return IntegrationFlow.from(ReliableUdp.inboundGateway(node).channels("strict").payloadType(Order.class).replyTimeout(300)
                            .errorOnTimeout(true))
                    .handle(m -> { })
                    .get();
        }
    }
}
