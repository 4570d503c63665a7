package io.reliableudp.spring.messaging;

import io.reliableudp.spring.annotation.UdpMessageListener;
import io.reliableudp.spring.listener.UdpListenerErrorHandler;
import io.reliableudp.spring.messaging.Events.Ack;
import io.reliableudp.spring.messaging.Events.Position;
import io.reliableudp.spring.messaging.Events.Telemetry;
import io.reliableudp.spring.support.ReliableUdpHeaders;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.messaging.handler.annotation.SendTo;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;
import org.springframework.validation.annotation.Validated;

/** The two applications of the messaging tests. */
final class TestApps {

    /** Channels both sides agree on. */
    static final String[] CHANNELS = {
        "reliable-udp.channels.events.index=0", "reliable-udp.channels.events.delivery-mode=reliable-ordered",
        "reliable-udp.channels.acks.index=1", "reliable-udp.channels.acks.delivery-mode=reliable-unordered",
        "reliable-udp.channels.telemetry.index=2", "reliable-udp.channels.telemetry.delivery-mode=unreliable",
        "reliable-udp.channels.commands.index=3", "reliable-udp.channels.commands.delivery-mode=reliable-ordered",
        "reliable-udp.channels.validated.index=4", "reliable-udp.channels.validated.delivery-mode=reliable-ordered",
    };

    private TestApps() {
    }

    /** One received position with what the listener saw of its transport. */
    record Received(Position position, InetSocketAddress from, String channel, int messageId, @Nullable String traceId) {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ServerApp {

        @Bean
        ServerListeners serverListeners() {
            return new ServerListeners();
        }

        @Bean
        UdpListenerErrorHandler commandErrorHandler(ServerListeners listeners) {
            return (message, exception) -> {
                listeners.handledErrors.add(exception);
                return "error:" + exception.getCause().getMessage();
            };
        }

        @Bean
        Validator positionValidator() {
            return new Validator() {
                @Override
                public boolean supports(Class<?> clazz) {
                    return Position.class.equals(clazz);
                }

                @Override
                public void validate(Object target, Errors errors) {
                    if (((Position) target).seq() < 0) {
                        errors.rejectValue("seq", "negative", "seq must be >= 0");
                    }
                }
            };
        }
    }

    static class ServerListeners {
        final List<Received> positions = new CopyOnWriteArrayList<>();
        final List<Telemetry> telemetry = new CopyOnWriteArrayList<>();
        final List<InetSocketAddress> telemetrySenders = new CopyOnWriteArrayList<>();
        final List<String> commands = new CopyOnWriteArrayList<>();
        final List<Map<String, Object>> commandHeaders = new CopyOnWriteArrayList<>();
        final List<Exception> handledErrors = new CopyOnWriteArrayList<>();
        final List<Position> validated = new CopyOnWriteArrayList<>();
        final List<String> positionPeerNames = new CopyOnWriteArrayList<>();

        // the README's example: the sender is not named on this side, and the header is still there
        @UdpMessageListener(id = "positions", channels = "events")
        @SendTo("acks")
        Ack onPosition(Position position, @Header(ReliableUdpHeaders.PEER_NAME) String peerName,
                @Header(ReliableUdpHeaders.PEER_ADDRESS) InetSocketAddress from,
                @Header(ReliableUdpHeaders.CHANNEL_NAME) String channel, @Header(ReliableUdpHeaders.MESSAGE_ID) int messageId,
                @Header(name = "trace-id", required = false) @Nullable String traceId) {
            positionPeerNames.add(peerName);
            positions.add(new Received(position, from, channel, messageId, traceId));
            return new Ack(position.seq(), "server");
        }

        @UdpMessageListener(id = "telemetry", channels = "${test.telemetry-channel:telemetry}")
        void onTelemetry(Telemetry t, InetSocketAddress sender) {
            telemetry.add(t);
            telemetrySenders.add(sender);
        }

        @UdpMessageListener(id = "commands", channels = "commands", errorHandler = "commandErrorHandler")
        String onCommand(String command, Message<?> message, @Headers Map<String, Object> headers) {
            commandHeaders.add(headers);
            if (command.startsWith("fail")) {
                throw new IllegalStateException("refused " + command);
            }
            commands.add(command);
            return "done:" + command;
        }

        @UdpMessageListener(id = "validated", channels = "validated")
        void onValidated(@Payload @Validated Position position) {
            validated.add(position);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class ClientApp {

        @Bean
        ClientListeners clientListeners() {
            return new ClientListeners();
        }
    }

    static class ClientListeners {
        final List<org.springframework.context.ApplicationEvent> peerEvents = new CopyOnWriteArrayList<>();

        @org.springframework.context.event.EventListener({io.reliableudp.spring.core.UdpPeerConnectedEvent.class,
                io.reliableudp.spring.core.UdpPeerDisconnectedEvent.class})
        void onPeerEvent(org.springframework.context.ApplicationEvent event) {
            peerEvents.add(event);
        }

        final List<Ack> acks = new CopyOnWriteArrayList<>();
        final List<String> ackPeers = new CopyOnWriteArrayList<>();
        final List<String> replies = new CopyOnWriteArrayList<>();

        @UdpMessageListener(id = "acks", channels = "acks", peers = "server")
        void onAck(Ack ack, @Header(ReliableUdpHeaders.PEER_NAME) String peer) {
            acks.add(ack);
            ackPeers.add(peer);
        }

        @UdpMessageListener(id = "replies", channels = "commands")
        void onReply(String reply) {
            replies.add(reply);
        }
    }
}
