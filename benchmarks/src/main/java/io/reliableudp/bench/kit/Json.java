package io.reliableudp.bench.kit;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes the benchmark results as JSON (maps, lists, strings, numbers, booleans, null): the small subset the
 * result line needs, so the harness carries no JSON library. NaN and infinities become {@code null}.
 */
public final class Json {

    private static final MathContext SIGNIFICANT = new MathContext(6);

    private Json() {
    }

    /** One line of JSON for a value made of {@link Map}s (keys as strings), {@link List}s and scalars. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder(256);
        write(out, value);
        return out.toString();
    }

    private static void write(StringBuilder out, Object value) {
        switch (value) {
            case null -> out.append("null");
            case String s -> string(out, s);
            case Boolean b -> out.append(b);
            case Integer i -> out.append(i);
            case Long l -> out.append(l);
            case Number n -> number(out, n.doubleValue());
            case Map<?, ?> map -> {
                out.append('{');
                Iterator<? extends Map.Entry<?, ?>> it = map.entrySet().iterator();
                while (it.hasNext()) {
                    Map.Entry<?, ?> e = it.next();
                    string(out, String.valueOf(e.getKey()));
                    out.append(':');
                    write(out, e.getValue());
                    if (it.hasNext()) {
                        out.append(',');
                    }
                }
                out.append('}');
            }
            case Iterable<?> list -> {
                out.append('[');
                Iterator<?> it = list.iterator();
                while (it.hasNext()) {
                    write(out, it.next());
                    if (it.hasNext()) {
                        out.append(',');
                    }
                }
                out.append(']');
            }
            default -> string(out, value.toString());
        }
    }

    private static void number(StringBuilder out, double d) {
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            out.append("null");
        } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            out.append((long) d);
        } else {
            // six significant digits are more than any benchmark figure carries
            out.append(new BigDecimal(d).round(SIGNIFICANT).stripTrailingZeros().toPlainString());
        }
    }

    private static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
