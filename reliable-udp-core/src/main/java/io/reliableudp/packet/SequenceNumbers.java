package io.reliableudp.packet;

/**
 * Wrap-aware comparisons of 16-bit sequence numbers, exactly as the reference library compares them.
 *
 * <p>Sequence numbers are {@code int} values in {@code 0..65535}; callers pass them already masked.
 * {@code a} is greater than {@code b} when {@code a > b && a - b <= 32768} or
 * {@code a < b && b - a > 32768}. At the half-way distance (32768) the relation is not symmetric:
 * {@code greaterThan(32768, 0)} and {@code lessThan(0, 32768)} hold, {@code greaterThan(0, 32768)} does not.
 */
final class SequenceNumbers {

    /** Number of distinct sequence numbers (2^16). */
    public static final int MODULUS = 65536;

    /** Mask that reduces any int to a 16-bit sequence number. */
    public static final int MASK = 0xFFFF;

    private SequenceNumbers() {
    }

    /**
     * Whether {@code s1} is newer than {@code s2}, allowing for wrap-around.
     *
     * @param s1 a sequence number in 0..65535
     * @param s2 a sequence number in 0..65535
     * @return true when {@code s1} follows {@code s2}
     */
    public static boolean greaterThan(int s1, int s2) {
        return (s1 > s2 && s1 - s2 <= 32768) || (s1 < s2 && s2 - s1 > 32768);
    }

    /**
     * Whether {@code s1} is older than {@code s2}, allowing for wrap-around: {@code greaterThan(s2, s1)}.
     *
     * @param s1 a sequence number in 0..65535
     * @param s2 a sequence number in 0..65535
     * @return true when {@code s1} precedes {@code s2}
     */
    public static boolean lessThan(int s1, int s2) {
        return greaterThan(s2, s1);
    }

    /**
     * Signed distance from {@code s2} to {@code s1}, consistent with {@link #greaterThan}: positive
     * (1..32768) when {@code s1} is greater, negative (-32768..-1) when it is less, 0 when equal.
     *
     * @param s1 a sequence number in 0..65535
     * @param s2 a sequence number in 0..65535
     * @return how far {@code s1} is ahead of {@code s2}
     */
    public static int difference(int s1, int s2) {
        if (s1 == s2) {
            return 0;
        }
        return greaterThan(s1, s2) ? (s1 - s2) & MASK : -((s2 - s1) & MASK);
    }

    /**
     * Adds a (possibly negative) offset to a sequence number, modulo 2^16.
     *
     * @param sequence a sequence number
     * @param offset   the offset
     * @return {@code (sequence + offset) mod 65536}
     */
    public static int add(int sequence, int offset) {
        return (sequence + offset) & MASK;
    }
}
