package io.reliableudp.spring.support;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.util.ClassUtils;

/**
 * Several payload types on one channel: the sender names the payload's type in the envelope's type id,
 * the receiver converts the body to that type before the listener sees it (so a listener of a sealed
 * interface, or of {@code Object}, gets the concrete record), as Spring Kafka's {@code __TypeId__}
 * header does. Type ids are logical names mapped to classes on both sides
 * ({@code reliable-udp.types.mappings.position=com.example.Position}), or, when the sender enables class
 * names, the class name itself; a received class name is used only when its package is trusted
 * ({@code reliable-udp.types.trusted-packages}, as Spring Kafka's {@code JsonDeserializer.TRUSTED_PACKAGES}):
 * a package trusts its subpackages, {@code *} trusts every package. A class named by the peer is loaded
 * without being initialized and only ever handed to the converter; an untrusted or unknown id is refused
 * with {@link UdpTypeNotTrustedException} (the container counts, logs and answers a request with an error).
 *
 * <p>Immutable and thread-safe.
 */
public final class UdpTypeMapper {

    private static final UdpTypeMapper NONE = new UdpTypeMapper(Map.of(), List.of(), false);

    private final Map<String, Class<?>> byId;
    private final Map<Class<?>, String> byClass;
    private final List<String> trustedPackages;
    private final boolean sendClassNames;

    /**
     * Creates the mapper.
     *
     * @param mappings type id to class (both directions)
     * @param trustedPackages packages whose classes may be named by a peer ({@code *} for all)
     * @param sendClassNames whether a payload of an unmapped class is sent with its class name as type id
     */
    public UdpTypeMapper(Map<String, Class<?>> mappings, Collection<String> trustedPackages, boolean sendClassNames) {
        Map<String, Class<?>> ids = new LinkedHashMap<>();
        Map<Class<?>, String> classes = new LinkedHashMap<>();
        mappings.forEach((id, type) -> {
            if (id.isBlank()) {
                throw new IllegalArgumentException("a type id must not be blank");
            }
            ids.put(id, Objects.requireNonNull(type, "type"));
            String previous = classes.putIfAbsent(type, id);
            if (previous != null) {
                throw new IllegalArgumentException(type.getName() + " is mapped twice: '" + previous + "' and '" + id + "'");
            }
        });
        this.byId = Map.copyOf(ids);
        this.byClass = Map.copyOf(classes);
        this.trustedPackages = List.copyOf(trustedPackages);
        this.sendClassNames = sendClassNames;
    }

    /** No type ids: every payload is converted to what the listener asks for. */
    public static UdpTypeMapper none() {
        return NONE;
    }

    /**
     * The type id a payload is sent with.
     *
     * @param payload the payload
     * @return its mapped id, else its class name when class names are sent, else null ({@code byte[]} and
     *     {@code String} never get one)
     */
    public @Nullable String typeIdOf(Object payload) {
        Class<?> type = payload.getClass();
        String id = byClass.get(type);
        if (id != null) {
            return id;
        }
        if (!sendClassNames || payload instanceof byte[] || payload instanceof String) {
            return null;
        }
        return type.getName();
    }

    /**
     * The class a received type id stands for.
     *
     * @param typeId the id from the envelope
     * @param classLoader where a trusted class name is loaded from
     * @return the class
     * @throws UdpTypeNotTrustedException when the id is neither mapped nor a class of a trusted package
     */
    public Class<?> resolve(String typeId, @Nullable ClassLoader classLoader) {
        Class<?> mapped = byId.get(typeId);
        if (mapped != null) {
            return mapped;
        }
        if (!isTrusted(typeId)) {
            throw new UdpTypeNotTrustedException(typeId, "neither a mapped type id " + byId.keySet()
                    + " nor a class of a trusted package " + trustedPackages);
        }
        try {
            Class<?> type = ClassUtils.forName(typeId, classLoader);
            if (type.isPrimitive() || type.isArray() || type.isInterface()) {
                throw new UdpTypeNotTrustedException(typeId, "not a concrete class");
            }
            return type;
        } catch (ClassNotFoundException | LinkageError e) {
            throw new UdpTypeNotTrustedException(typeId, "no such class here");
        }
    }

    private boolean isTrusted(String className) {
        int dot = className.lastIndexOf('.');
        String pkg = dot < 0 ? "" : className.substring(0, dot);
        for (String t : trustedPackages) {
            if (t.equals("*") || pkg.equals(t) || pkg.startsWith(t + ".")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "UdpTypeMapper[mappings=" + byId.keySet() + ", trusted=" + trustedPackages + ", classNames=" + sendClassNames + "]";
    }
}
