package io.reliableudp.spring.boot.autoconfigure;

import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Several payload types on one channel ({@code reliable-udp.types.*}): the type ids senders put in the
 * envelope and which classes a receiver accepts for them (the {@code UdpTypeMapper}).
 *
 * @param mappings Type id to class name, on both sides, e.g. position: com.example.Position; a payload of a mapped class is sent with its id, and a received id is converted to its class.
 * @param trustedPackages Packages whose classes a peer may name by class name as type id (a package trusts its subpackages; "*" trusts every package). Empty: only mapped ids are accepted.
 * @param sendClassNames Whether a payload of an unmapped class (not byte[] nor String) is sent with its class name as type id.
 */
@ConfigurationProperties("reliable-udp.types")
public record ReliableUdpTypeProperties(
        @DefaultValue Map<String, String> mappings,
        @DefaultValue List<String> trustedPackages,
        @DefaultValue("false") boolean sendClassNames) {
}
