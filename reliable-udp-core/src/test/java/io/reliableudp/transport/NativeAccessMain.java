package io.reliableudp.transport;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM of {@link BatchedPortTest}: starts two nodes on loopback with {@link BatchedIo} {@code args[0]},
 * exchanges a message, and prints {@code RESULT kind=<port kind> delivered=<true|false>}, so that the
 * test can run it with native access denied or enabled and see which port the node ran on.
 */
public final class NativeAccessMain {

    private NativeAccessMain() {
    }

    public static void main(String[] args) throws Exception {
        NodeConfig config = NodeConfig.builder().bindAddress(new InetSocketAddress("127.0.0.1", 0))
                .batchedIo(BatchedIo.valueOf(args[0])).build();
        RecordingListener events = new RecordingListener();
        boolean delivered = false;
        String kind;
        try (ReliableUdpNode server = ReliableUdpNode.start(config, events);
             ReliableUdpNode client = ReliableUdpNode.start(config, new RecordingListener())) {
            kind = server.portKind();
            client.connect(server.localAddress()).get(20, TimeUnit.SECONDS).send(0, "hello".getBytes(StandardCharsets.UTF_8))
                    .get(20, TimeUnit.SECONDS);
            for (int i = 0; i < 200 && !delivered; i++) {
                delivered = events.texts(0).contains("hello");
                Thread.sleep(50);
            }
        }
        System.out.println("RESULT kind=" + kind.split(" ")[0] + " delivered=" + delivered);
    }
}
