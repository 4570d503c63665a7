package io.reliableudp.testsupport;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A Linux network namespace for the kernel-path tests (real loss, a policer, a blackhole): made with
 * {@code ip netns add}, its loopback up, optionally with an nftables output chain to add drop rules
 * to, deleted on {@link #close}. {@link #assumeAvailable} skips the calling test with a message when
 * the machine cannot make one (not root, no {@code ip} or {@code nft}).
 */
public final class NetworkNamespace implements AutoCloseable {

    /** The nftables table the namespace's rules live in. */
    public static final String TABLE = "rudp";
    /** The chain of that table hooked on output. */
    public static final String CHAIN = "out";

    private final String name;
    private boolean closed;

    private NetworkNamespace(String name) {
        this.name = name;
    }

    /**
     * Skips the calling test (a JUnit assumption) unless this process is root and {@code ip} and
     * {@code nft} are installed; {@code test} names it in the message.
     */
    public static void assumeAvailable(String test) {
        Assumptions.assumeTrue(isRoot(), "skipped: the " + test + " test needs root (network namespaces, nftables)");
        Assumptions.assumeTrue(onPath("ip"), "skipped: iproute2 ('ip') is not installed");
        Assumptions.assumeTrue(onPath("nft"), "skipped: nftables ('nft') is not installed");
    }

    /** A new namespace named {@code prefix-<pid>} with its loopback up (deleted again if that fails). */
    public static NetworkNamespace create(String prefix) throws Exception {
        NetworkNamespace ns = new NetworkNamespace(prefix + "-" + ProcessHandle.current().pid());
        run("ip", "netns", "add", ns.name);
        try {
            run("ip", "-n", ns.name, "link", "set", "lo", "up");
        } catch (Exception e) {
            ns.close();
            throw e;
        }
        return ns;
    }

    /**
     * A new namespace with an nftables output chain ({@value #TABLE}/{@value #CHAIN}) holding one rule,
     * {@code rule} as nft takes it after {@code add rule inet rudp out}.
     */
    public static NetworkNamespace withOutputRule(String prefix, String... rule) throws Exception {
        NetworkNamespace ns = create(prefix);
        try {
            ns.exec("nft", "add", "table", "inet", TABLE);
            ns.exec("nft", "add", "chain", "inet", TABLE, CHAIN, "{ type filter hook output priority 0; }");
            List<String> add = new ArrayList<>(List.of("nft", "add", "rule", "inet", TABLE, CHAIN));
            add.addAll(List.of(rule));
            ns.exec(add.toArray(String[]::new));
        } catch (Exception e) {
            ns.close();
            throw e;
        }
        return ns;
    }

    /** The namespace's name. */
    public String name() {
        return name;
    }

    /** Runs {@code command} inside the namespace and returns its output (fails on a non-zero exit). */
    public String exec(String... command) throws Exception {
        List<String> full = new ArrayList<>(prefix());
        full.addAll(List.of(command));
        return run(full.toArray(String[]::new));
    }

    /** {@code ip netns exec <name>}: put before a command to run it inside the namespace. */
    public List<String> prefix() {
        return List.of("ip", "netns", "exec", name);
    }

    /** A child JVM inside the namespace on this JVM's class path, running {@code main} with {@code args}. */
    public ProcessBuilder javaChild(Class<?> main, String... args) {
        List<String> command = new ArrayList<>(prefix());
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).redirectErrorStream(true);
    }

    /** Deletes the namespace (once). */
    @Override
    public void close() throws Exception {
        if (!closed) {
            closed = true;
            run("ip", "netns", "del", name);
        }
    }

    /** Runs a command, waits up to 30 s and returns its output; fails naming it on a non-zero exit. */
    public static String run(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
        }
        return out;
    }

    private static boolean isRoot() {
        if ("root".equals(System.getProperty("user.name"))) {
            return true;
        }
        try {
            Process p = new ProcessBuilder("id", "-u").start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor() == 0 && out.equals("0");
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    private static boolean onPath(String command) {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/sbin", "/sbin"));
        return dirs.stream().anyMatch(d -> Files.isExecutable(Path.of(d, command)));
    }
}
