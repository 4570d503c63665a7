package io.reliableudp.transport;

/**
 * The {@code TICK} send mode's {@link LaneSchedule}: the lane's tick runs at
 * {@link NodeConfig#sendRateHz()} and updates every peer of the lane (which sends what its message
 * layer lets go); a send only queues; {@link Peer#flush()} writes on the caller's thread. No per-peer
 * deadlines: the tick is the only clock.
 */
final class TickLaneSchedule implements LaneSchedule {

    /** The factory the node picks for {@code TICK}. */
    static final LaneSchedule.Factory FACTORY = new LaneSchedule.Factory() {
        @Override
        public double tickSeconds(NodeConfig config, double handshakeResendSeconds) {
            return 1.0 / config.sendRateHz();
        }

        @Override
        public LaneSchedule create(PeerDriver.Lane lane, IoLoop loop, NodeEvents events, PeerTable peers, NodeClock clock,
                                   ConditionerSetting conditioning) {
            return new TickLaneSchedule(lane, loop, peers);
        }
    };

    private final PeerDriver.Lane lane;
    private final IoLoop loop;
    private final PeerTable peers;

    private TickLaneSchedule(PeerDriver.Lane lane, IoLoop loop, PeerTable peers) {
        this.lane = lane;
        this.loop = loop;
        this.peers = peers;
    }

    @Override
    public boolean queued(PeerDriver peer) {
        return false; // the next tick sends it
    }

    @Override
    public void ask(PeerDriver peer) {
        // the next tick sends it
    }

    /** Sends what is queued now, on the caller's thread. */
    @Override
    public void flush(PeerDriver peer) {
        peer.flushNow();
    }

    @Override
    public void resumeLeft(PeerDriver peer) {
        loop.wakeup(); // the next tick applies it
    }

    @Override
    public void adopt(PeerDriver peer) {
        // every tick visits every peer
    }

    @Override
    public void deadline(PeerDriver peer, double next) {
        // the tick is the only clock
    }

    /** Every peer of this lane: keepalive, timeout, handshake retries, and the message layer's update (which sends). */
    @Override
    public void tick(double now) {
        for (PeerDriver peer : peers.all()) {
            if (peer.lane() != lane) {
                continue;
            }
            try {
                peer.tick(now);
            } catch (RuntimeException e) {
                peer.failed("update", e);
            }
        }
    }

    @Override
    public void turn() {
        // the tick did it all
    }

    @Override
    public long nextDeadline() {
        return Long.MAX_VALUE;
    }

    @Override
    public long housekeepingVisits() {
        return 0;
    }
}
