package io.reliableudp.bench.kit;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;
import tools.jackson.databind.ser.std.StdSerializer;

/**
 * The benchmark results as JSON, through the Jackson the starter brings: maps (keys in insertion order),
 * lists, strings, numbers, booleans and null. Fractional numbers keep six significant digits, more than
 * any benchmark figure carries, written plain ({@code 0.0000000025}, not {@code 2.5E-9}); whole ones are
 * written without a fraction; NaN and infinities become {@code null}. Read back, an object is a
 * {@link LinkedHashMap} (the order of systems and figures is kept) and a number an {@link Integer},
 * {@link Long} or {@link Double}.
 */
public final class Json {

    private static final TypeReference<LinkedHashMap<String, Object>> OBJECT = new TypeReference<>() {
    };

    private static final JsonMapper MAPPER = JsonMapper.builder()
            .addModule(new SimpleModule("benchmark-figures")
                    .addSerializer(Double.class, new Figure<>(Double.class))
                    .addSerializer(Float.class, new Figure<>(Float.class)))
            .build();

    private Json() {
    }

    /** One line of JSON for a value made of {@link Map}s (keys as strings), lists and scalars. */
    public static String write(Object value) {
        return MAPPER.writeValueAsString(value);
    }

    /**
     * Parses a JSON object.
     *
     * @throws tools.jackson.core.JacksonException on malformed JSON or anything but one object
     */
    public static Map<String, Object> object(String text) {
        return MAPPER.readValue(text, OBJECT);
    }

    /** A fractional figure: six significant digits, plain notation; NaN and infinities as null. */
    private static final class Figure<T extends Number> extends StdSerializer<T> {

        private static final MathContext SIGNIFICANT = new MathContext(6);

        Figure(Class<T> type) {
            super(type);
        }

        @Override
        public void serialize(T value, JsonGenerator gen, SerializationContext context) {
            double d = value.doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                gen.writeNull();
            } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                gen.writeNumber((long) d);
            } else {
                gen.writeNumber(new BigDecimal(d).round(SIGNIFICANT).stripTrailingZeros().toPlainString());
            }
        }
    }
}
