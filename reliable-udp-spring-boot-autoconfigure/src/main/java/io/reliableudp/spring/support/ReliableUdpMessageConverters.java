package io.reliableudp.spring.support;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.messaging.converter.ByteArrayMessageConverter;
import org.springframework.messaging.converter.CompositeMessageConverter;
import org.springframework.messaging.converter.MessageConverter;
import org.springframework.messaging.converter.StringMessageConverter;

/**
 * Builds the default payload converter: {@code byte[]} as is ({@code application/octet-stream}),
 * {@code String} as UTF-8 ({@code text/plain}), anything else as JSON ({@code application/json}) when
 * a JSON converter is given. The first converter that accepts the payload type wins, in that order.
 */
public final class ReliableUdpMessageConverters {

    private ReliableUdpMessageConverters() {
    }

    /**
     * The default composite converter.
     *
     * @param json the JSON converter (e.g. Spring's {@code JacksonJsonMessageConverter}), or null when
     *     JSON is not available
     * @return the converter
     */
    public static CompositeMessageConverter create(@Nullable MessageConverter json) {
        List<MessageConverter> converters = new ArrayList<>(3);
        converters.add(new ByteArrayMessageConverter());
        StringMessageConverter text = new StringMessageConverter();
        converters.add(text);
        if (json != null) {
            converters.add(json);
        }
        return new CompositeMessageConverter(converters);
    }
}
