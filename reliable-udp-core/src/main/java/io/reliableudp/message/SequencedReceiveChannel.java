package io.reliableudp.message;

/** Unreliable-sequenced delivery: only messages newer than the newest delivered (copies and older ones are dropped). */
final class SequencedReceiveChannel extends ReceiveChannel {

    private boolean hasNewest;
    private int newest;

    SequencedReceiveChannel(int index, int window, Receiver receiver) {
        super(index, DeliveryMode.UNRELIABLE_SEQUENCED, window, receiver);
    }

    @Override
    void receive(int id, byte[] data, int offset, int length) {
        if (hasNewest) {
            int d = (id - newest) & 0xFFFF;
            if (d == 0) {
                duplicatesDropped++;
                return;
            }
            if (d >= 32768) {
                messagesDropped++;
                return;
            }
        }
        hasNewest = true;
        newest = id;
        deliver(id, data, offset, length);
    }
}
