package io.reliableudp.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.DeliveryMode;
import io.reliableudp.spring.core.ManagedReliableUdpNode;
import io.reliableudp.spring.core.ReliableUdpSendException;
import io.reliableudp.spring.core.ReliableUdpTemplate;
import io.reliableudp.spring.support.SendResult;
import io.reliableudp.spring.listener.ListenerTestApp;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.channel.QueueChannel;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.dsl.IntegrationFlow;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageChannel;
import org.springframework.messaging.MessageHandlingException;
import org.springframework.messaging.support.ErrorMessage;
import org.springframework.messaging.support.MessageBuilder;

/** Two applications joined by Spring Integration flows over the node: request, ack result, reply. */
@Timeout(60)
class IntegrationFlowTests {

    record Order(String id, int quantity) {
    }

    record Confirmation(String orderId, String status) {
    }

    record Quote(String orderId, double price) {
    }

    private AnnotationConfigApplicationContext server;
    private AnnotationConfigApplicationContext client;

    @AfterEach
    void close() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private static ListenerTestApp app() {
        return new ListenerTestApp().channel("orders", DeliveryMode.RELIABLE_ORDERED)
                .channel("confirmations", DeliveryMode.RELIABLE_ORDERED)
                .channel("quotes", DeliveryMode.RELIABLE_UNORDERED)
                .inboundHeaders("tenant");   // the one carried header these flows read
    }

    @Test
    void requestAckAndReplyFlowThroughBothApplications() {
        server = app().start(ServerFlows.class);
        client = app().peer("server", server).start(ClientFlows.class);

        MessageChannel toServer = client.getBean("toServer", MessageChannel.class);
        for (int i = 0; i < 5; i++) {
            toServer.send(MessageBuilder.withPayload(new Order("o" + i, i + 1)).setHeader("tenant", "acme").build());
        }

        // the gateway's reply: the ack result, with the request headers
        QueueChannel sendResults = client.getBean("sendResults", QueueChannel.class);
        for (int i = 0; i < 5; i++) {
            Message<?> result = sendResults.receive(10_000);
            assertThat(result).isNotNull();
            assertThat(result.getPayload()).isInstanceOfSatisfying(SendResult.class, r -> {
                assertThat(r.acknowledged()).isTrue();
                assertThat(r.peerName()).isEqualTo("server");
                assertThat(r.channel().name()).isEqualTo("orders");
            });
            assertThat(result.getHeaders()).containsEntry("tenant", "acme").containsKey(ReliableUdpHeaders.SEND_RESULT);
        }

        // the server flow received typed orders, in order, with the carried header
        QueueChannel received = server.getBean("receivedOrders", QueueChannel.class);
        for (int i = 0; i < 5; i++) {
            Message<?> m = received.receive(10_000);
            assertThat(m).isNotNull();
            assertThat(m.getPayload()).isEqualTo(new Order("o" + i, i + 1));
            assertThat(m.getHeaders()).containsEntry("tenant", "acme").containsEntry(ReliableUdpHeaders.CHANNEL_NAME, "orders");
        }

        // and the server's one-way adapter answered to the sender: the confirmations came back
        QueueChannel confirmations = client.getBean("confirmations", QueueChannel.class);
        List<String> ids = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Message<?> m = confirmations.receive(10_000);
            assertThat(m).isNotNull();
            ids.add(((Confirmation) m.getPayload()).orderId());
        }
        assertThat(ids).containsExactly("o0", "o1", "o2", "o3", "o4");
    }

    @Test
    void theOutboundGatewayIsRequestReplyItsReplyIsTheRemoteListenersAnswer() {
        server = app().start(ServerFlows.class);
        client = app().peer("server", server).start(ClientFlows.class);
        MessageChannel quoteRequests = client.getBean("quoteRequests", MessageChannel.class);
        for (int i = 0; i < 3; i++) {
            quoteRequests.send(MessageBuilder.withPayload(new Order("q" + i, i + 1)).setHeader("tenant", "acme").build());
        }
        QueueChannel quotes = client.getBean("quotes", QueueChannel.class);
        java.util.Map<String, Double> prices = new java.util.HashMap<>();
        for (int i = 0; i < 3; i++) {
            Message<?> m = quotes.receive(10_000);
            assertThat(m).isNotNull();
            Quote q = (Quote) m.getPayload();
            prices.put(q.orderId(), q.price());
            assertThat(m.getHeaders()).containsEntry("tenant", "acme").containsEntry(ReliableUdpHeaders.PEER_NAME, "server");
        }
        assertThat(prices).containsEntry("q0", 1.5).containsEntry("q1", 3.0).containsEntry("q2", 4.5);

        // the listener's exception comes back to the flow's error channel as a RemoteListenerException
        client.getBean("quoteRequests", MessageChannel.class).send(MessageBuilder.withPayload(new Order("bad", -1))
                .setErrorChannel(client.getBean("failures", MessageChannel.class)).build());
        Message<?> error = client.getBean("failures", QueueChannel.class).receive(10_000);
        assertThat(error).isInstanceOf(ErrorMessage.class);
        Throwable t = ((ErrorMessage) error).getPayload();
        while (t != null && !(t instanceof io.reliableudp.spring.core.RemoteListenerException)) {
            t = t.getCause();
        }
        assertThat(t).isInstanceOfSatisfying(io.reliableudp.spring.core.RemoteListenerException.class, e -> {
            assertThat(e.category()).isEqualTo(io.reliableudp.spring.core.RemoteListenerException.Category.LISTENER_FAILED);
            assertThat(e.remoteMessage()).isEmpty();
        });
    }

    @Test
    void aFailedSendReachesTheFlowsErrorChannel() {
        server = app().start(ServerFlows.class);
        client = app().peer("server", new java.net.InetSocketAddress("127.0.0.1", 1)).start(ClientFlows.class);   // nobody there
        client.getBean("toServer", MessageChannel.class).send(MessageBuilder.withPayload(new Order("lost", 1))
                .setErrorChannel(client.getBean("failures", MessageChannel.class)).build());
        Message<?> error = client.getBean("failures", QueueChannel.class).receive(10_000);
        assertThat(error).isInstanceOf(ErrorMessage.class);
        Throwable t = ((ErrorMessage) error).getPayload();
        while (t != null && !(t instanceof ReliableUdpSendException)) {
            t = t.getCause();
        }
        assertThat(t).isInstanceOfSatisfying(ReliableUdpSendException.class, e -> assertThat(e.reason()).isEqualTo(DeliveryFailure.NOT_CONNECTED));
        assertThat(((ErrorMessage) error).getPayload()).isInstanceOf(MessageHandlingException.class);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIntegration
    static class ServerFlows {

        @Bean
        Pricing pricing() {
            return new Pricing();
        }

        @Bean
        QueueChannel receivedOrders() {
            return new QueueChannel();
        }

        @Bean
        IntegrationFlow ordersIn(ManagedReliableUdpNode node, ReliableUdpTemplate template) {
            return IntegrationFlow.from(ReliableUdp.inboundAdapter(node).channels("orders").payloadType(Order.class))
                    .wireTap("receivedOrders")
                    .transform(Order.class, o -> new Confirmation(o.id(), "accepted"))
                    // answer the sender, whose address is in the inbound headers
                    .handle(ReliableUdp.outboundAdapter(template).peerFunction(m -> m.getHeaders().get(ReliableUdpHeaders.PEER_ADDRESS))
                            .channel("confirmations"))
                    .get();
        }
    }

    /** The server's request/reply listener behind the client's gateway. */
    static class Pricing {
        @io.reliableudp.spring.annotation.UdpMessageListener(channels = "quotes")
        Quote price(Order order) {
            if (order.quantity() < 0) {
                throw new IllegalArgumentException("negative quantity " + order.quantity());
            }
            return new Quote(order.id(), order.quantity() * 1.5);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIntegration
    static class ClientFlows {

        @Bean
        QueueChannel quotes() {
            return new QueueChannel();
        }

        @Bean
        IntegrationFlow quotesOut(ReliableUdpTemplate template) {
            return IntegrationFlow.from("quoteRequests")
                    .handle(ReliableUdp.outboundGateway(template).peer("server").channel("quotes").replyType(Quote.class))
                    .channel("quotes")
                    .get();
        }

        @Bean
        QueueChannel sendResults() {
            return new QueueChannel();
        }

        @Bean
        QueueChannel confirmations() {
            return new QueueChannel();
        }

        @Bean
        QueueChannel failures() {
            return new QueueChannel();
        }

        @Bean
        IntegrationFlow ordersOut(ReliableUdpTemplate template) {
            return IntegrationFlow.from("toServer")
                    .handle(ReliableUdp.outboundGateway(template).peer("server").channel("orders").acknowledgementOnly(true))
                    .channel("sendResults")
                    .get();
        }

        @Bean
        IntegrationFlow confirmationsIn(ManagedReliableUdpNode node) {
            return IntegrationFlow.from(ReliableUdp.inboundAdapter(node).channels("confirmations").peers("server").payloadType(Confirmation.class))
                    .channel("confirmations")
                    .get();
        }
    }
}
