/**
 * reliable-udp's core: reliable messaging over UDP, plain Java.
 *
 * <p>Exports what a user of the library needs: the node API ({@code transport}), the sans-I/O packet and
 * message layers with their configuration and value types ({@code packet}, {@code message}), the link
 * conditioner ({@code link}), and the types shared by every layer ({@code io.reliableudp}: the reasons a
 * connection ends, a datagram is dropped or a handshake fails, and the configuration error). The
 * connection layer ({@code connection}) and the codecs ({@code internal}) are the transport's and the
 * layers' own and are not exported. docs/standalone.md lists the public types of each exported package.
 *
 * <p>The nullness annotations are needed to compile only ({@code static}), and {@code transitive}
 * because they are part of the exported signatures: a module that reads this one sees them too.
 */
module io.reliableudp {
    requires static transitive org.jspecify;

    exports io.reliableudp;
    exports io.reliableudp.link;
    exports io.reliableudp.message;
    exports io.reliableudp.packet;
    exports io.reliableudp.transport;
}
