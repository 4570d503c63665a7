package io.reliableudp.spring.support;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.springframework.messaging.MessageHeaders;
import org.springframework.util.PatternMatchUtils;

/**
 * The default {@link UdpHeaderMapper}. Outbound, every header is carried except the ones that describe
 * the local message rather than its content ({@code id}, {@code timestamp}, {@code contentType}, which
 * the envelope has a field for, {@code replyChannel}, {@code errorChannel}) and every transport header
 * ({@code rudp_*}). Inbound it is an allow-list: by default a listener sees no header the peer chose,
 * only the transport headers of {@link ReliableUdpHeaders}, which come from the connection, and the
 * content type; {@link #setInboundHeaderNames} names the carried headers to let through. A peer can
 * therefore not set headers that steer the receiving application ({@code json__TypeId__}, which Spring
 * Integration's JSON transformer would instantiate, {@code correlationId}, {@code sequenceNumber},
 * {@code priority}, which aggregators and resequencers read) unless the application allowed them.
 *
 * <p>Patterns: {@code "trace*"} keeps the names that match, a leading {@code !} excludes, the first
 * matching pattern decides, and a name no pattern matches is not mapped (as Spring AMQP's
 * {@code SimpleAmqpHeaderMapper} patterns).
 */
public class DefaultUdpHeaderMapper implements UdpHeaderMapper {

    private List<String> outboundPatterns = List.of("*");
    private List<String> inboundPatterns = List.of();

    /**
     * Sets which headers a send carries.
     *
     * @param patterns simple patterns ({@code *} wildcards, {@code !} to exclude), first match decides
     */
    public void setOutboundHeaderNames(String... patterns) {
        this.outboundPatterns = List.of(patterns);
    }

    /**
     * Sets which received headers listeners see (default none: only the transport headers and the
     * content type). Name only what the application reads; {@code "*"} lets a peer set any header.
     *
     * @param patterns simple patterns ({@code *} wildcards, {@code !} to exclude), first match decides
     */
    public void setInboundHeaderNames(String... patterns) {
        this.inboundPatterns = List.of(patterns);
    }

    @Override
    public void fromHeaders(Map<String, ?> headers, Map<String, Object> target) {
        headers.forEach((name, value) -> {
            if (value != null && !isLocal(name) && matches(outboundPatterns, name)) {
                target.put(name, value);
            }
        });
    }

    @Override
    public void toHeaders(Map<String, Object> envelopeHeaders, Map<String, Object> target) {
        envelopeHeaders.forEach((name, value) -> {
            if (!isLocal(name) && matches(inboundPatterns, name)) {
                target.put(name, value);
            }
        });
    }

    /** The headers no mapper may carry: transport headers and the local message's own. */
    static boolean isLocal(String name) {
        return name.startsWith(ReliableUdpHeaders.PREFIX) || name.equals(MessageHeaders.ID) || name.equals(MessageHeaders.TIMESTAMP)
                || name.equals(MessageHeaders.CONTENT_TYPE) || name.equals(MessageHeaders.REPLY_CHANNEL)
                || name.equals(MessageHeaders.ERROR_CHANNEL);
    }

    private static boolean matches(List<String> patterns, String name) {
        for (String p : patterns) {
            Objects.requireNonNull(p, "pattern");
            if (p.startsWith("!")) {
                if (PatternMatchUtils.simpleMatch(p.substring(1), name)) {
                    return false;
                }
            } else if (PatternMatchUtils.simpleMatch(p, name)) {
                return true;
            }
        }
        return false;
    }
}
