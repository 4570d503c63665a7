package io.reliableudp.spring.cloud;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.UniqueElements;

/**
 * Properties of the consistent-hash ring keyed sends use: a key stays on one member while the members
 * do not change (whatever order they are listed in), a join moves only keys to the new member and
 * about 1/N of them, a leave moves only the keys of the member that left.
 */
class UdpHashRingPropertyTests {

    private static final int VIRTUAL_NODES = 160;
    private static final int KEYS = 4_000;

    @Property(tries = 60)
    void aKeyStaysOnOneMemberWhateverTheListOrder(@ForAll("members") List<String> members, @ForAll long seed) {
        UdpHashRing<String> ring = new UdpHashRing<>(members, Function.identity(), VIRTUAL_NODES);
        List<String> shuffled = new ArrayList<>(members);
        java.util.Collections.shuffle(shuffled, new java.util.Random(seed));
        UdpHashRing<String> again = new UdpHashRing<>(shuffled, Function.identity(), VIRTUAL_NODES);
        for (int k = 0; k < 500; k++) {
            String key = "order-" + seed + "-" + k;
            assertThat(ring.owner(key)).isEqualTo(ring.owner(key)).isEqualTo(again.owner(key));
        }
    }

    @Property(tries = 40)
    void aJoinMovesOnlyKeysToTheNewMemberAboutOneInN(@ForAll("members") List<String> members, @ForAll @IntRange(min = 0, max = 1_000_000) int salt) {
        String joiner = "joiner-" + salt;
        if (members.contains(joiner)) {
            return;
        }
        UdpHashRing<String> before = new UdpHashRing<>(members, Function.identity(), VIRTUAL_NODES);
        List<String> grown = new ArrayList<>(members);
        grown.add(joiner);
        UdpHashRing<String> after = new UdpHashRing<>(grown, Function.identity(), VIRTUAL_NODES);
        int moved = 0;
        for (int k = 0; k < KEYS; k++) {
            String key = salt + "/" + k;
            String was = before.owner(key);
            String now = after.owner(key);
            if (!now.equals(was)) {
                assertThat(now).as("a key that moves on a join moves to the joiner").isEqualTo(joiner);
                moved++;
            }
        }
        double expected = (double) KEYS / grown.size();
        // 160 points per member: the joiner's share is within a factor of ~1.5 of 1/N (a modulo hash would move ~(N-1)/N)
        assertThat((double) moved).isBetween(expected * 0.5, expected * 1.6);
    }

    @Property(tries = 40)
    void aLeaveMovesOnlyTheKeysOfTheMemberThatLeft(@ForAll("members") List<String> members, @ForAll @IntRange(min = 0, max = 63) int which) {
        String leaver = members.get(which % members.size());
        UdpHashRing<String> before = new UdpHashRing<>(members, Function.identity(), VIRTUAL_NODES);
        List<String> shrunk = new ArrayList<>(members);
        shrunk.remove(leaver);
        UdpHashRing<String> after = new UdpHashRing<>(shrunk, Function.identity(), VIRTUAL_NODES);
        Map<String, Integer> share = new HashMap<>();
        int moved = 0;
        for (int k = 0; k < KEYS; k++) {
            String key = "k" + k;
            String was = before.owner(key);
            share.merge(was, 1, Integer::sum);
            String now = after.owner(key);
            if (was.equals(leaver)) {
                assertThat(now).isNotEqualTo(leaver);
                moved++;
            } else {
                assertThat(now).as("keys of members that stay do not move").isEqualTo(was);
            }
        }
        if (!shrunk.isEmpty()) {
            assertThat((double) moved).isBetween(KEYS / (double) members.size() * 0.5, KEYS / (double) members.size() * 1.6);
        }
    }

    @Property(tries = 30)
    void excludingTheOwnerGivesTheNextMemberAndNeverAnExcludedOne(@ForAll("members") List<String> members,
            @ForAll @Size(max = 3) @UniqueElements List<@IntRange(min = 0, max = 15) Integer> excludedIdx) {
        UdpHashRing<String> ring = new UdpHashRing<>(members, Function.identity(), VIRTUAL_NODES);
        List<String> excluded = excludedIdx.stream().filter(i -> i < members.size()).map(members::get).toList();
        for (int k = 0; k < 300; k++) {
            String owner = ring.owner("x" + k, excluded);
            if (excluded.size() == members.size()) {
                assertThat(owner).isNull();
            } else {
                assertThat(owner).isNotNull().isNotIn(excluded);
                if (!excluded.contains(ring.owner("x" + k))) {
                    assertThat(owner).isEqualTo(ring.owner("x" + k));
                }
            }
        }
    }

    @Provide
    Arbitrary<List<String>> members() {
        return Arbitraries.strings().withCharRange('a', 'z').ofMinLength(3).ofMaxLength(12)
                .map(s -> "orders-" + s + ":127.0.0.1:4" + Math.abs(s.hashCode() % 10_000))
                .list().uniqueElements().ofMinSize(1).ofMaxSize(12);
    }
}
