package io.reliableudp.demo.web;

import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Both ends of the TCP lane in one small JVM, started by {@link NetnsTcpLane} inside the lossy network
 * namespace. Reads commands on stdin ({@code e <seq>}: send event seq now; {@code l <micros>}: the
 * one-way latency to add), sends each event in its own segment (TCP_NODELAY), and prints
 * {@code <seq> <latency micros>} on stdout when the receiving end has it (after holding it until its
 * send time plus the latency). Prints {@code ready} once connected. Exits when stdin closes.
 */
public final class TcpLanePeer {

    private static volatile long latencyNanos;

    private TcpLanePeer() {
    }

    /**
     * Runs the peer.
     *
     * @param args none
     */
    public static void main(String[] args) throws IOException {
        InetAddress lo = InetAddress.getLoopbackAddress();
        try (ServerSocket server = new ServerSocket(0, 1, lo); Socket client = new Socket(lo, server.getLocalPort());
                Socket accepted = server.accept()) {
            client.setTcpNoDelay(true);
            DataOutputStream out = new DataOutputStream(client.getOutputStream());
            DataInputStream in = new DataInputStream(accepted.getInputStream());
            Thread.ofPlatform().daemon().name("tcp-lane-receiver").start(() -> receive(in));
            System.out.println("ready");
            System.out.flush();
            BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
            String line;
            while ((line = commands.readLine()) != null) {
                if (line.startsWith("e ")) {
                    out.writeLong(Long.parseLong(line.substring(2)));
                    out.writeLong(System.nanoTime());
                    out.flush();
                } else if (line.startsWith("l ")) {
                    latencyNanos = Long.parseLong(line.substring(2)) * 1_000;
                }
            }
        }
    }

    private static void receive(DataInputStream in) {
        try {
            while (true) {
                long seq = in.readLong();
                long sentAt = in.readLong();
                long due = sentAt + latencyNanos;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                System.out.println(seq + " " + (System.nanoTime() - sentAt) / 1_000);
                System.out.flush();
            }
        } catch (IOException | InterruptedException e) {
            System.exit(0);   // the sending end closed: done
        }
    }
}
