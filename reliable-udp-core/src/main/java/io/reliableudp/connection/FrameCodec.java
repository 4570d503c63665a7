package io.reliableudp.connection;

import io.reliableudp.DropReason;
import io.reliableudp.internal.WireCodec;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * Seals and opens the connected frames of one connection (KEEPALIVE, PAYLOAD, DISCONNECT; spec 3.7
 * and 3.9), in plain and encrypted mode alike, and keeps the connection's replay window.
 *
 * <p>Every frame carries a 64-bit sequence per direction, counted from 0 by the sender and never
 * repeated; the receiver refuses a sequence older than its {@value ReplayWindow#SIZE}-frame window or
 * already seen in it ({@link DropReason#REPLAYED}). In encrypted mode the sequence is the AEAD nonce,
 * the frame's body is sealed with ChaCha20-Poly1305 and the window moves only after the tag verified. In
 * plain mode nothing is authenticated, but an old datagram (a duplicate, a late one, or a recording
 * sent again from the peer's address) is still recognised as old and dropped before it reaches the
 * packet layer, whose 16-bit sequences wrap within seconds on a busy connection and would then take
 * an old packet for a new one.
 *
 * <p>Sealing works in place: the caller leaves {@link #HEADER} bytes free in front of the body, and
 * in encrypted mode {@link Protocol#TAG_BYTES} after it (the buffer is a heap buffer then). Opening a
 * plain frame reads its body where it lies; an encrypted one is opened into a buffer of this codec's
 * ({@link #body()}). Neither allocates in steady state. Knows nothing of the connection that uses it.
 * Not thread-safe.
 */
final class FrameCodec {

    /** Bytes of the frame header in both modes: type, salt, sequence. */
    static final int HEADER = Protocol.FRAME_HEADER;

    private final boolean encrypted;
    /** Authenticated with every encrypted frame after its header: version and protocol id. */
    private final byte[] aadTail = new byte[9];
    /** Where a header is encoded before it is put in front of the body. */
    private final byte[] header = new byte[HEADER];
    private final ReplayWindow window = new ReplayWindow();
    private @Nullable FrameKeys sealer;
    private @Nullable FrameKeys opener;
    private long sendSequence;
    /** Where an encrypted frame is opened (empty in plain mode). */
    private byte[] opened;
    private byte[] body;
    private int bodyOffset;
    private DropReason dropReason = DropReason.MALFORMED;

    /**
     * A codec for frames of up to {@code datagramBudget} bytes (larger ones are opened too, after the
     * buffer grew once).
     */
    FrameCodec(boolean encrypted, long protocolId, int datagramBudget) {
        this.encrypted = encrypted;
        this.aadTail[0] = (byte) Protocol.VERSION;
        WireCodec.putLongBE(aadTail, 1, protocolId);
        this.opened = new byte[encrypted ? datagramBudget : 0];
        this.body = opened;
    }

    /** Whether frames are sealed with keys (a pre-shared key is configured). */
    boolean encrypted() {
        return encrypted;
    }

    /** Encrypted mode: the keys to seal and open with from now on (they update along the sequence, spec 3.8). */
    void keys(FrameKeys sealWith, FrameKeys openWith) {
        this.sealer = sealWith;
        this.opener = openWith;
    }

    /** Encrypted mode: forgets the keys (a handshake that starts over). */
    void clearKeys() {
        this.sealer = null;
        this.opener = null;
    }

    /** Frame key updates so far, both directions (spec 3.8, "Key update"). */
    long keyUpdates() {
        FrameKeys s = sealer;
        FrameKeys o = opener;
        return (s == null ? 0 : s.updates()) + (o == null ? 0 : o.updates());
    }

    /** Bytes a frame adds around its body: the header, plus the tag when encrypted. */
    int overhead() {
        return Protocol.frameOverhead(encrypted);
    }

    /** The next sequence this end seals a frame with (frames sealed so far). */
    long nextSequence() {
        return sendSequence;
    }

    /**
     * Frames the body at {@code d[bodyOff, bodyOff+bodyLen)} in place: the header goes in the
     * {@link #HEADER} bytes in front of it (which must be free), and in encrypted mode the body is
     * sealed where it lies, its tag after it. The frame starts at {@code bodyOff - HEADER}.
     *
     * @return the frame's length, or -1 when an encrypted codec has no keys yet (nothing written)
     */
    int seal(ByteBuffer d, byte type, int salt, int bodyOff, int bodyLen) {
        FrameKeys keys = sealer;
        if (encrypted && keys == null) {
            return -1;
        }
        byte[] h = header;
        long sequence = sendSequence++;
        h[0] = type;
        WireCodec.putIntBE(h, 1, salt);
        WireCodec.putLongBE(h, 5, sequence);
        int start = bodyOff - HEADER;
        d.put(start, h, 0, HEADER);
        if (keys == null) {
            return HEADER + bodyLen;
        }
        Aead s = keys.sealer(sequence);
        byte[] a = d.array();
        int base = d.arrayOffset();
        return HEADER + s.seal(sequence, a, base + start, HEADER, aadTail, a, base + bodyOff, bodyLen, a, base + bodyOff);
    }

    /**
     * Opens the frame at {@code data[offset, offset+length)} (its type byte already checked) of the
     * connection with {@code salt}: checks the length, the salt and the replay window, and in encrypted
     * mode the tag. On success the window has moved past the frame's sequence and the body is at
     * {@link #body()} from {@link #bodyOffset()}: in {@code data} itself in plain mode, in this codec's
     * buffer in encrypted mode, valid until the next call.
     *
     * @return the body's length, or -1 when the frame is dropped (why: {@link #dropReason()})
     */
    int open(byte[] data, int offset, int length, int salt) {
        if (length < HEADER + (encrypted ? Protocol.TAG_BYTES : 0)) {
            return drop(DropReason.MALFORMED);
        }
        if (WireCodec.getIntBE(data, offset + 1) != salt) {
            return drop(DropReason.STALE_CONNECTION);
        }
        long sequence = WireCodec.getLongBE(data, offset + 5);
        if (window.alreadyReceived(sequence)) {
            return drop(DropReason.REPLAYED);
        }
        if (!encrypted) {
            window.advance(sequence);
            body = data;
            bodyOffset = offset + HEADER;
            return length - HEADER;
        }
        FrameKeys keys = opener;
        Aead o = keys == null ? null : keys.opener(sequence);
        if (o == null) {
            return drop(DropReason.DECRYPT_FAILED);
        }
        byte[] p = opened;
        if (length > p.length) {
            // the peer's datagrams grew (its size probe was answered): at most the node's largest budget
            p = new byte[length];
            opened = p;
        }
        int n = o.open(sequence, data, offset, HEADER, aadTail, data, offset + HEADER, length - HEADER, p, 0);
        if (n < 0) {
            return drop(DropReason.DECRYPT_FAILED);
        }
        window.advance(sequence);
        keys.opened(sequence);
        body = p;
        bodyOffset = 0;
        return n;
    }

    /** The newest sequence accepted so far (0 before any). */
    long newestReceived() {
        return window.mostRecent();
    }

    /** The array holding the body of the frame last opened. */
    byte[] body() {
        return body;
    }

    /** Where the body of the frame last opened starts in {@link #body()}. */
    int bodyOffset() {
        return bodyOffset;
    }

    /** Why the last {@link #open} returned -1. */
    DropReason dropReason() {
        return dropReason;
    }

    private int drop(DropReason why) {
        dropReason = why;
        return -1;
    }

    @Override
    public String toString() {
        return "FrameCodec[" + (encrypted ? "encrypted" : "plain") + ", sent=" + sendSequence
                + ", newest received=" + window.mostRecent() + "]";
    }
}
