package io.reliableudp.testsupport;

import io.reliableudp.message.DeliveryException;
import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.SendCompletion;
import org.jspecify.annotations.Nullable;

/**
 * Test fixture: a {@link SendCompletion} that counts every call it gets, so that "every send ends
 * exactly once" can fail. A {@code CompletableFuture} cannot show it: its second {@code complete} or
 * {@code completeExceptionally} returns false and changes nothing, so a message told twice (delivered
 * and then failed by a close, say) looks like one told once. This one remembers the first outcome and
 * counts every call; a second call also throws an {@link AssertionError} at once, which the message
 * layer does not catch (it catches the {@code RuntimeException}s of completions), so the test fails at
 * the call that broke the promise, with its stack.
 */
public final class CountedCompletion implements SendCompletion {

    private int calls;
    private boolean delivered;
    private @Nullable DeliveryFailure failure;
    private int messageId = -1;

    @Override
    public void delivered(int channel, int id) {
        if (++calls > 1) {
            throw new AssertionError("send completion told twice: delivered after " + outcome());
        }
        delivered = true;
        messageId = id;
    }

    @Override
    public void failed(DeliveryException reason) {
        if (++calls > 1) {
            throw new AssertionError("send completion told twice: failed (" + reason.reason() + ") after " + outcome());
        }
        failure = reason.reason();
    }

    /** How many times the message layer told this completion (1 when the promise holds, once it ended). */
    public int calls() {
        return calls;
    }

    /** Whether it has been told anything. */
    public boolean ended() {
        return calls > 0;
    }

    /** Whether the first call said delivered (reliable: acknowledged; unreliable: written). */
    public boolean delivered() {
        return delivered;
    }

    /** The reason of the first call when it said failed, else null. */
    public @Nullable DeliveryFailure failure() {
        return failure;
    }

    /** The message id the delivery named, or -1. */
    public int messageId() {
        return messageId;
    }

    private String outcome() {
        return delivered ? "delivered" : failure != null ? "failed (" + failure + ")" : "nothing";
    }

    @Override
    public String toString() {
        return "CountedCompletion[" + outcome() + ", calls=" + calls + "]";
    }
}
