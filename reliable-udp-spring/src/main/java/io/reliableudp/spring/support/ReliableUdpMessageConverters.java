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

    private static final boolean JACKSON_PRESENT = org.springframework.util.ClassUtils.isPresent(
            "tools.jackson.databind.json.JsonMapper", ReliableUdpMessageConverters.class.getClassLoader());

    /**
     * The default composite converter with JSON when Jackson 3 is on the class path (a mapper of its own;
     * the auto-configuration passes the application's instead).
     *
     * @return the converter
     */
    public static CompositeMessageConverter createDefault() {
        return create(JACKSON_PRESENT ? Json.converter() : null);
    }

    /** Keeps Jackson types out of the outer class, so it loads without Jackson. */
    private static final class Json {
        static MessageConverter converter() {
            return new org.springframework.messaging.converter.JacksonJsonMessageConverter();
        }
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
