package io.reliableudp.message;

/**
 * Whether the loss a {@link DeliveryRateController} sees is random or grows with its send rate: counts
 * the fate of the packets sent in its probe round (gain 1.25, faster than the path delivers) and in its
 * probe-down round (0.75, slower), and compares the two loss rates at the start of each cycle. Random
 * loss is the same at any rate, so equal rates give the random loss the controller compensates for
 * ({@link #randomLoss}); a probe round that loses markedly more (by {@value #RATE_LOSS_MARGIN} and by
 * {@value #RATE_LOSS_Z} standard deviations of the difference) means a policer or an overflowing queue.
 * Decides nothing about the rate: the controller asks it ({@link #lossGrowsWithRate}) and acts.
 */
final class LossContrast {

    /**
     * Most random loss compensated: the pacing rate is raised at most 1 / 0.7 = 1.43x, so a wrong
     * reading (a policer's loss taken for random) costs at most that much overshoot until the next
     * cycle's comparison corrects it.
     */
    static final double MAX_RANDOM_LOSS = 0.3;
    /** Packets of both the probe and the probe-down rounds needed to compare their loss. */
    static final int MIN_CONTRAST_SAMPLES = 10;
    /**
     * Loss of the probe round above the probe-down round's by this much (absolute) means the loss
     * grows with the send rate: a policer or a full queue, not random loss.
     */
    static final double RATE_LOSS_MARGIN = 0.05;
    /** ... and by this many standard deviations of the difference, so that chance does not make a policer. */
    static final double RATE_LOSS_Z = 2.5;
    /** Weight kept of the probe and probe-down loss counts after each comparison. */
    static final double LOSS_DECAY = 0.5;

    private double downLost;
    private double downResolved;
    private double upLost;
    private double upResolved;
    private double randomLoss;
    private long policerEpisodes;

    /** A packet sent in the probe round was acknowledged or declared lost ({@code lost}). */
    void probeResolved(boolean lost) {
        upResolved++;
        if (lost) {
            upLost++;
        }
    }

    /** A packet sent in the probe-down round was acknowledged or declared lost ({@code lost}). */
    void probeDownResolved(boolean lost) {
        downResolved++;
        if (lost) {
            downLost++;
        }
    }

    /**
     * The comparison at the start of a cycle, once both rounds have {@value #MIN_CONTRAST_SAMPLES}
     * packets (until then it keeps counting and answers false). True when the probe round lost markedly
     * more: the counts start over and no loss is compensated. Otherwise the probe-down round's loss is
     * the random loss from now on, and the counts keep {@value #LOSS_DECAY} of their weight.
     */
    boolean lossGrowsWithRate() {
        boolean compared = upResolved >= MIN_CONTRAST_SAMPLES && downResolved >= MIN_CONTRAST_SAMPLES;
        if (!compared) {
            return false; // keep counting until both rounds have enough packets
        }
        double up = upLost / upResolved;
        double down = downLost / downResolved;
        double pooled = (upLost + downLost) / (upResolved + downResolved);
        double noise = Math.sqrt(pooled * (1 - pooled) * (1 / upResolved + 1 / downResolved));
        if (up - down > RATE_LOSS_MARGIN && up - down > RATE_LOSS_Z * noise) {
            policerEpisodes++;
            randomLoss = 0;
            downLost = downResolved = upLost = upResolved = 0;
            return true;
        }
        // the loss is the same at 1.25 and at 0.75: random, compensated from now on
        randomLoss = Math.min(MAX_RANDOM_LOSS, down);
        downLost *= LOSS_DECAY;
        downResolved *= LOSS_DECAY;
        upLost *= LOSS_DECAY;
        upResolved *= LOSS_DECAY;
        return false;
    }

    /** The random loss rate to compensate for (0..{@value #MAX_RANDOM_LOSS}). */
    double randomLoss() {
        return randomLoss;
    }

    /** Times the loss was found to grow with the send rate. */
    long policerEpisodes() {
        return policerEpisodes;
    }
}
