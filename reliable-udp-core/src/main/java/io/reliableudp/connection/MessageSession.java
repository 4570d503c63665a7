package io.reliableudp.connection;

import io.reliableudp.message.DeliveryFailure;
import io.reliableudp.message.MessageConfig;
import io.reliableudp.message.MessageEndpoint;
import io.reliableudp.message.MessageStats;
import io.reliableudp.message.ReceivePool;
import io.reliableudp.message.RttSampleListener;
import io.reliableudp.message.SendCompletion;
import org.jspecify.annotations.Nullable;

/**
 * The production {@link Session}: the message layer's {@link MessageEndpoint}.
 *
 * <p>The connection layer's contract with the transport; not user API.
 */
public final class MessageSession implements Session {

    /** Makes a {@link MessageEndpoint} per connection. */
    public static final Session.Factory FACTORY = MessageSession::new;

    private final MessageEndpoint endpoint;

    private MessageSession(MessageConfig config, double time, Output out, Input in) {
        this(new MessageEndpoint(config, time, out, in));
    }

    /**
     * Makes a {@link MessageEndpoint} per connection whose receive memory also counts against
     * {@code pool} (one per node).
     *
     * @param pool the receive memory shared by the connections
     * @return the factory
     */
    public static Session.Factory factory(ReceivePool pool) {
        return (config, time, out, in) -> new MessageSession(new MessageEndpoint(config, time, out, in, pool));
    }

    private MessageSession(MessageEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /**
     * A session over an endpoint built elsewhere (with another sender or packet link: the tests'
     * copying session), forwarding as the production one does.
     *
     * @param endpoint the endpoint the session drives
     * @return the session
     */
    public static Session over(MessageEndpoint endpoint) {
        return new MessageSession(endpoint);
    }

    @Override
    public int offer(int channel, byte[] payload, @Nullable SendCompletion completion) {
        return endpoint.offer(channel, payload, completion);
    }

    @Override
    public int offer(int channel, byte[] payload) {
        return endpoint.offer(channel, payload);
    }

    @Override
    public int offer(int channel, byte[] payload, @Nullable SendCompletion completion, int ttlMillis) {
        return endpoint.offer(channel, payload, completion, ttlMillis);
    }

    @Override
    public int deliveredMessageAgeMillis() {
        return endpoint.deliveredMessageAgeMillis();
    }

    @Override
    public void receive(byte[] data, int offset, int length) {
        endpoint.receive(data, offset, length);
    }

    @Override
    public void receive(byte[] data, int offset, int length, double time) {
        endpoint.receive(data, offset, length, time);
    }

    @Override
    public double nextDeadline() {
        return endpoint.nextDeadline();
    }

    @Override
    public void update(double time) {
        endpoint.update(time);
    }

    @Override
    public void flush(double time) {
        endpoint.flush(time);
    }

    @Override
    public boolean settled() {
        return endpoint.settled();
    }

    @Override
    public boolean hasPendingReliable() {
        return endpoint.hasPendingReliable();
    }

    @Override
    public void close(DeliveryFailure reason) {
        endpoint.close(reason);
    }

    @Override
    public MessageStats stats() {
        return endpoint.stats();
    }

    @Override
    public void pauseReceiving(int channel) {
        endpoint.pauseReceiving(channel);
    }

    @Override
    public void resumeReceiving(int channel) {
        endpoint.resumeReceiving(channel);
    }

    @Override
    public boolean holdAgain(int channel, int messageId, byte[] payload) {
        return endpoint.holdAgain(channel, messageId, payload);
    }

    @Override
    public void setRttListener(@Nullable RttSampleListener listener) {
        endpoint.setRttListener(listener);
    }

    @Override
    public void datagramBudgetChanged(int datagramBudget) {
        endpoint.datagramBudgetChanged(datagramBudget);
    }

    @Override
    public void datagramBudgetChanged(int datagramBudget, boolean watch) {
        endpoint.datagramBudgetChanged(datagramBudget, watch);
    }
}
