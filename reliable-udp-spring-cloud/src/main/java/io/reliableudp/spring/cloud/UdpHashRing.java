package io.reliableudp.spring.cloud;

import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A consistent-hash ring with virtual nodes: which member a routing key belongs to. Each member owns
 * {@code virtualNodes} points on a 64-bit ring (hashes of its id and the point's number); a key goes
 * to the owner of the first point at or after the key's hash, clockwise. When a member joins it takes
 * only the arcs before its own points, and when one leaves only its keys move (to the next points'
 * owners): about 1/N of the keys for N members, and no key moves between two members that stay.
 *
 * <p>Immutable and thread-safe; {@link #owner} does not allocate for {@code String} and {@code byte[]}
 * keys. The hash is a 64-bit FNV-1a over the key's UTF-16 chars (or bytes) finished by the SplitMix64
 * mixer, so that neighbouring keys and neighbouring point numbers spread over the whole ring.
 *
 * @param <M> the member type
 */
public final class UdpHashRing<M> {

    private final long[] points;
    private final int[] owners;
    private final List<M> members;

    /**
     * Builds the ring.
     *
     * @param members the members, each with a distinct id
     * @param idOf a member's stable id (what is hashed: the same id lands on the same points)
     * @param virtualNodes points per member, at least 1 (more points: a more even share)
     */
    public UdpHashRing(List<M> members, java.util.function.Function<? super M, String> idOf, int virtualNodes) {
        if (virtualNodes < 1) {
            throw new IllegalArgumentException("virtualNodes must be >= 1, was " + virtualNodes);
        }
        this.members = List.copyOf(members);
        int n = this.members.size() * virtualNodes;
        long[] hashes = new long[n];
        int[] who = new int[n];
        int k = 0;
        for (int m = 0; m < this.members.size(); m++) {
            String id = Objects.requireNonNull(idOf.apply(this.members.get(m)), "id");
            for (int v = 0; v < virtualNodes; v++) {
                hashes[k] = hash(id + '#' + v);
                who[k] = m;
                k++;
            }
        }
        // sort the points, carrying their owners (ties broken by owner index: deterministic)
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
            int c = Long.compareUnsigned(hashes[a], hashes[b]);
            return c != 0 ? c : Integer.compare(who[a], who[b]);
        });
        this.points = new long[n];
        this.owners = new int[n];
        for (int i = 0; i < n; i++) {
            points[i] = hashes[order[i]];
            owners[i] = who[order[i]];
        }
    }

    /** The members. */
    public List<M> members() {
        return members;
    }

    /** True when the ring has no member. */
    public boolean isEmpty() {
        return members.isEmpty();
    }

    /**
     * The member a key belongs to.
     *
     * @param key the key ({@code byte[]} by content, anything else by its {@code toString()})
     * @return the owner, or null when the ring is empty
     */
    public @Nullable M owner(Object key) {
        return owner(key, List.of());
    }

    /**
     * The member a key belongs to, skipping some members: the next owner clockwise that is not excluded
     * (how a message is re-routed away from an instance that could not take it).
     *
     * @param key the key
     * @param excluded members to skip
     * @return the owner, or null when every member is excluded or the ring is empty
     */
    public @Nullable M owner(Object key, Collection<?> excluded) {
        if (points.length == 0) {
            return null;
        }
        long h = hashKey(key);
        int i = firstAtOrAfter(h);
        for (int step = 0; step < points.length; step++) {
            M m = members.get(owners[(i + step) % points.length]);
            if (excluded.isEmpty() || !excluded.contains(m)) {
                return m;
            }
        }
        return null;
    }

    private int firstAtOrAfter(long h) {
        int lo = 0;
        int hi = points.length;   // [lo, hi)
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(points[mid], h) < 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo == points.length ? 0 : lo;   // past the last point: wrap to the first
    }

    /**
     * The ring position of a key.
     *
     * @param key the key ({@code byte[]} by content, a {@code CharSequence} by its chars, else {@code toString()})
     * @return the 64-bit hash
     */
    public static long hashKey(Object key) {
        if (key instanceof byte[] bytes) {
            long h = 0xcbf29ce484222325L;
            for (byte b : bytes) {
                h = (h ^ (b & 0xff)) * 0x100000001b3L;
            }
            return mix(h);
        }
        return hash(key instanceof CharSequence cs ? cs : key.toString());
    }

    private static long hash(CharSequence s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            h = (h ^ (c & 0xff)) * 0x100000001b3L;
            h = (h ^ (c >>> 8)) * 0x100000001b3L;
        }
        return mix(h);
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    @Override
    public String toString() {
        return "UdpHashRing" + members + " (" + points.length + " points)";
    }
}
