package io.reliableudp.message;

import java.util.concurrent.CompletableFuture;

/** The future of a {@link SendHandle}: a {@link SendCompletion} that completes itself (null on delivery). */
final class FutureCompletion extends CompletableFuture<Void> implements SendCompletion {

    @Override
    public void delivered(int channel, int messageId) {
        complete(null);
    }

    @Override
    public void failed(DeliveryException failure) {
        completeExceptionally(failure);
    }
}
