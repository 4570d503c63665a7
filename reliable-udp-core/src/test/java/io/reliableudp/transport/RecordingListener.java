package io.reliableudp.transport;

import io.reliableudp.DisconnectReason;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records every callback of a node, for assertions. */
final class RecordingListener implements NodeListener {

    record Received(Peer peer, int channel, int messageId, byte[] payload) {
        String text() {
            return new String(payload, java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    record Disconnected(Peer peer, DisconnectReason reason) {
    }

    final List<Received> messages = new CopyOnWriteArrayList<>();
    final List<Peer> connected = new CopyOnWriteArrayList<>();
    final List<Disconnected> disconnected = new CopyOnWriteArrayList<>();
    final List<String> threads = new CopyOnWriteArrayList<>();

    @Override
    public void onMessage(Peer peer, int channel, int messageId, byte[] payload) {
        messages.add(new Received(peer, channel, messageId, payload));
    }

    @Override
    public void onConnected(Peer peer) {
        connected.add(peer);
        threads.add(Thread.currentThread().getName());
    }

    @Override
    public void onDisconnected(Peer peer, DisconnectReason reason) {
        disconnected.add(new Disconnected(peer, reason));
    }

    List<String> texts(int channel) {
        return messages.stream().filter(m -> m.channel() == channel).map(Received::text).toList();
    }
}
