// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Blocks whose number follows a size, as a Loop's per step ({@link RepeatedBlocks}). */
@EngineIndependent
class RepeatedBlocksTest {
    /** The trip counts of the six probes; candidates: a constant 8, the trip count, 4 x the trip count. */
    private static final long[] TRIPS = {8, 16, 40, 12, 32, 20};

    private interface Blocks {
        long[] at(long trips);
    }

    private static List<WorkspaceFit.Probe> points() {
        List<WorkspaceFit.Probe> out = new ArrayList<>();
        for (long n : TRIPS) {
            out.add(new WorkspaceFit.Probe(new long[] {8, n, 4 * n}, 0));
        }
        return out;
    }

    private static List<long[]> blocks(Blocks b) {
        List<long[]> out = new ArrayList<>();
        for (long n : TRIPS) {
            out.add(b.at(n));
        }
        return out;
    }

    /** The Range Loop's blocks: its iteration number and condition, then a float per step. */
    private static long[] range(long n) {
        long[] b = new long[(int) n + 2];
        b[0] = 8;
        b[1] = 1;
        for (int i = 2; i < b.length; i++) {
            b[i] = 4;
        }
        return b;
    }

    /** A fitted line at trip count {@code n}. */
    private static long at(WorkspaceFit.Line line, long n) {
        long[] sizes = {8, n, 4 * n};
        return line.at(java.util.Arrays.stream(line.candidates()).mapToLong(c -> sizes[c]).toArray());
    }

    @Test
    void aBlockPerStepAfterTwoOfItsOwn() {
        RepeatedBlocks.Layout layout = RepeatedBlocks.fit(points(), blocks(RepeatedBlocksTest::range)).orElseThrow();
        assertEquals(1, layout.times(), "the trip count is the number of repeats");
        assertEquals(List.of(8L, 1L), layout.head().stream().map(l -> l.at()).toList());
        assertEquals(List.of(4L), layout.group().stream().map(l -> l.at()).toList());
        assertTrue(layout.tail().isEmpty());
    }

    @Test
    void aGroupOfTwoBetweenAHeadAndATail() {
        Blocks b = n -> {
            List<Long> out = new ArrayList<>(List.of(64L));
            for (long i = 0; i < n; i++) {
                out.add(4L);
                out.add(16L);
            }
            out.add(8 * n);
            return out.stream().mapToLong(Long::longValue).toArray();
        };
        RepeatedBlocks.Layout layout = RepeatedBlocks.fit(points(), blocks(b)).orElseThrow();
        assertEquals(1, layout.head().size());
        assertEquals(2, layout.group().size());
        assertEquals(1, layout.tail().size());
        assertEquals(8 * 7, at(layout.tail().get(0).line(), 7), "the tail's block follows a size too");
    }

    @Test
    void aStepThatGivesBackItsTemporariesIsOneGroup() {
        // a Loop's step: a temporary, the step's output, the temporary given back
        Blocks b = n -> {
            List<Long> out = new ArrayList<>(List.of(8L));
            for (long i = 0; i < n; i++) {
                out.addAll(List.of(16L, 4L, -2L));
            }
            return out.stream().mapToLong(Long::longValue).toArray();
        };
        RepeatedBlocks.Layout layout = RepeatedBlocks.fit(points(), blocks(b)).orElseThrow();
        assertEquals(List.of(16L, 4L, -2L), layout.group().stream().map(e -> e.at()).toList());
        assertEquals(List.of(false, false, true),
                layout.group().stream().map(RepeatedBlocks.Entry::givesBack).toList());
    }

    @Test
    void aGroupFromTheThirdStepOnRepeatsTwoTimesFewerThanTheTripCount() {
        // as ORT's Loop over test_loop11: from the third step on, a step first gives back a value of
        // the step two before; the first two steps are the head
        Blocks b = n -> {
            List<Long> out = new ArrayList<>(List.of(8L, 1L, 8L, 4L, -2L, 4L, -2L, 4L, 8L, 4L, -2L, 4L, -2L, 4L));
            for (long i = 2; i < n; i++) {
                out.addAll(List.of(-6L, 8L, 4L, -2L, 4L, -2L, 4L));
            }
            return out.stream().mapToLong(Long::longValue).toArray();
        };
        RepeatedBlocks.Layout layout = RepeatedBlocks.fit(points(), blocks(b)).orElseThrow();
        assertEquals(2, layout.fewer());
        for (long n : new long[] {2, 3, 7, 100}) { // inside and outside the probes' trip counts
            List<Long> unfolded = new ArrayList<>();
            layout.head().forEach(e -> unfolded.add(e.at()));
            for (long r = 0; r < n - layout.fewer(); r++) {
                layout.group().forEach(e -> unfolded.add(e.at()));
            }
            layout.tail().forEach(e -> unfolded.add(e.at()));
            assertEquals(java.util.Arrays.stream(b.at(n)).boxed().toList(), unfolded, "at " + n + " steps");
        }
    }

    @Test
    void aGiveBackWhereAnotherProbeTookABlockFitsNothing() {
        Blocks b = n -> {
            long[] out = range(n);
            out[out.length - 1] = n == 8 ? -1 : out[out.length - 1];
            return out;
        };
        assertTrue(RepeatedBlocks.fit(points(), blocks(b)).isEmpty());
    }

    @Test
    void repeatsThatDifferFitNothing() {
        Blocks b = n -> {
            long[] out = range(n);
            out[out.length / 2] = 12; // one step took another size
            return out;
        };
        assertTrue(RepeatedBlocks.fit(points(), blocks(b)).isEmpty());
    }

    @Test
    void aNumberThatFollowsNoSizeFitsNothing() {
        assertTrue(RepeatedBlocks.fit(points(), blocks(n -> new long[(int) (n * n % 7) + 1])).isEmpty());
    }
}
