package io.reliableudp.bench.kit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One child process of a benchmark (a peer): its stdout and stderr go to a log file, its stdout lines are also
 * readable with a deadline ({@link #awaitLine}), its stdin takes commands ({@link #send}). Bounded: every wait
 * has a deadline and {@link #close()} kills the process and its descendants if still alive, so a peer that hangs
 * is killed and reported, never waited on forever.
 */
public final class ChildProcess implements AutoCloseable {

    private static final String EOF = "\u0000eof";

    private final String name;
    private final Process process;
    private final Path log;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final PrintWriter stdin;
    private final Writer logWriter;
    private boolean killed;

    private ChildProcess(String name, Process process, Path log, Writer logWriter) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.logWriter = logWriter;
        this.stdin = new PrintWriter(new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
        pump(process.getInputStream(), logWriter, true);
        pump(process.getErrorStream(), logWriter, false);
    }

    /**
     * Starts a child.
     *
     * @param name a short name for messages ("tcp receiver")
     * @param command the command line
     * @param log the file that gets the child's stdout and stderr
     */
    public static ChildProcess start(String name, List<String> command, Path log) throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        Writer w = Files.newBufferedWriter(log, StandardCharsets.UTF_8);
        w.write("$ " + String.join(" ", command) + "\n");
        w.flush();
        Process p = new ProcessBuilder(command).start();
        return new ChildProcess(name, p, log, w);
    }

    private void pump(java.io.InputStream in, Writer logWriter, boolean queue) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (logWriter) {
                        try {
                            logWriter.write((queue ? "" : "[err] ") + line + "\n");
                            logWriter.flush();
                        } catch (IOException closed) {
                            // the child outlived close(): its last lines are not logged
                        }
                    }
                    if (queue) {
                        lines.add(line);
                    }
                }
            } catch (IOException e) {
                // the process ended
            } finally {
                if (queue) {
                    lines.add(EOF);
                }
            }
        }, "child-" + name + (queue ? "-out" : "-err"));
        t.setDaemon(true);
        t.start();
    }

    /** The child's name as given. */
    public String name() {
        return name;
    }

    /** The process id of the child (with {@code ip netns exec}: of the command it runs). */
    public long pid() {
        return process.pid();
    }

    /** The log file of the child. */
    public Path log() {
        return log;
    }

    /**
     * Waits for the next stdout line that starts with {@code prefix} (other lines are skipped, they are in the log).
     *
     * @param deadlineNanos a {@link System#nanoTime()} deadline
     * @return the line, or null when the deadline passed or the child closed its stdout first
     */
    public String awaitLine(String prefix, long deadlineNanos) throws InterruptedException {
        while (true) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            String line = lines.poll(left, TimeUnit.NANOSECONDS);
            if (line == null) {
                return null;
            }
            if (line == EOF) {
                lines.add(EOF);
                return null;
            }
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    /** Writes one line to the child's stdin (ignored when it is gone). */
    public void send(String line) {
        stdin.println(line);
    }

    /** Closes the child's stdin: peers take it as "stop". */
    public void closeStdin() {
        stdin.close();
    }

    /**
     * Waits for the child to exit.
     *
     * @return true when it exited before the deadline
     */
    public boolean waitFor(long deadlineNanos) throws InterruptedException {
        return process.waitFor(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    /** The exit code; only after the child exited. */
    public int exitCode() {
        return process.exitValue();
    }

    /** Whether {@link #close()} or {@link #kill()} had to kill the child. */
    public boolean wasKilled() {
        return killed;
    }

    /** Kills the child and its descendants at once. */
    public void kill() {
        if (process.isAlive()) {
            killed = true;
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills the child if it is still running. */
    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
        stdin.close();
        synchronized (logWriter) {
            try {
                logWriter.close();
            } catch (IOException e) {
                // nothing more to log
            }
        }
    }
}
