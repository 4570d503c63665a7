package io.reliableudp.bench.loss;

import io.reliableudp.bench.kit.NetNamespace;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The ENet peer of the {@code loss} benchmark: the C source {@code enet_peer.c} (a resource of the benchmarks jar,
 * from {@code benchmarks/src/main/c}) compiled with gcc against the system's libenet into
 * {@code benchmarks/target/native/enet-peer}, again whenever the source changed.
 */
final class EnetPeer {

    private static final String SOURCE = "/c/enet_peer.c";
    private static final Path HEADER = Path.of("/usr/include/enet/enet.h");

    private EnetPeer() {
    }

    /** Why ENet cannot run here (no libenet-dev, no gcc), or empty when it can. */
    static Optional<String> unavailable() {
        if (!Files.isReadable(HEADER)) {
            return Optional.of("libenet-dev is not installed (apt-get install libenet-dev)");
        }
        if (!NetNamespace.onPath("gcc")) {
            return Optional.of("gcc is not installed");
        }
        return Optional.empty();
    }

    /** Compiles the peer into {@code dir} if needed and returns the executable. */
    static Path build(Path dir) throws IOException, InterruptedException {
        byte[] source;
        try (InputStream in = EnetPeer.class.getResourceAsStream(SOURCE)) {
            if (in == null) {
                throw new IOException("resource " + SOURCE + " missing from the benchmarks jar");
            }
            source = in.readAllBytes();
        }
        Files.createDirectories(dir);
        Path c = dir.resolve("enet_peer.c");
        Path binary = dir.resolve("enet-peer");
        boolean changed = !Files.exists(c) || !Arrays.equals(Files.readAllBytes(c), source);
        if (changed) {
            Files.write(c, source);
        }
        if (changed || !Files.isExecutable(binary)) {
            Process p = new ProcessBuilder("gcc", "-O2", "-Wall", "-o", binary.toString(), c.toString(), "-lenet")
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("gcc failed to build the ENet peer: " + out.trim());
            }
        }
        return binary;
    }
}
