// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.NativeRequirement;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Packing} on seeded random problems with large, sparse, even negative times: every packing
 * is checked on the original half-open lifetimes, independently of the time compression.
 */
class PackingTest {

    /** A random problem: {@code [lower, upper)} over sparse times, sizes over three magnitudes. */
    private record Problem(long[] lower, long[] upper, long[] sizes) {
        static Problem random(long seed) {
            Random r = new Random(seed);
            int n = 1 + r.nextInt(300);
            long base = r.nextBoolean() ? -1_000L : 1L << 40; // negative and huge times both work
            long[] lower = new long[n];
            long[] upper = new long[n];
            long[] sizes = new long[n];
            for (int i = 0; i < n; i++) {
                lower[i] = base + 1_000L * r.nextInt(200) + r.nextInt(3);
                upper[i] = lower[i] + 1 + (r.nextInt(4) == 0 ? 50_000L * r.nextInt(4) : r.nextInt(3_000));
                sizes[i] = r.nextInt(10) == 0 ? 0 : (long) Math.pow(10, r.nextInt(3)) * (1 + r.nextInt(64));
            }
            return new Problem(lower, upper, sizes);
        }
    }

    static LongStream seeds() {
        return LongStream.range(0, 200);
    }

    static LongStream groupSeeds() {
        return LongStream.range(0, 20);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void packsARandomProblemIntoAValidArena(long seed) {
        Problem p = Problem.random(seed);
        Packing.Result r = Packing.pack(p.lower(), p.upper(), p.sizes(), (int) (seed % 3), EngineMode.fromSystemProperty());
        assertEquals(p.sizes().length, r.size());
        long highestEnd = 0;
        for (int i = 0; i < r.size(); i++) {
            assertTrue(r.offset(i) >= 0, "buffer " + i + " offset " + r.offset(i));
            highestEnd = Math.max(highestEnd, r.offset(i) + p.sizes()[i]);
        }
        assertEquals(highestEnd, r.arenaBytes(), "the arena ends at the highest buffer end");
        assertEquals(Arrays.stream(p.sizes()).sum(), r.naiveBytes());
        assertEquals(maxLiveBytes(p), r.lowerBoundBytes());
        assertTrue(r.arenaBytes() >= r.lowerBoundBytes());
        assertNoTwoLiveBuffersShareBytes(p, r.offsets());
    }

    @Test
    void theSameProblemPacksTheSameOnBothEngines() {
        NativeRequirement.requireNativeEngine();
        for (long seed = 1_000; seed < 1_100; seed++) {
            Problem p = Problem.random(seed);
            int effort = (int) (seed % 4);
            Packing.Result java = Packing.pack(p.lower(), p.upper(), p.sizes(), effort, EngineMode.JAVA);
            Packing.Result nat = Packing.pack(p.lower(), p.upper(), p.sizes(), effort, EngineMode.NATIVE);
            assertArrayEquals(java.offsets(), nat.offsets(), "seed " + seed);
            assertEquals(java.arenaBytes(), nat.arenaBytes(), "seed " + seed);
            assertEquals(java.lowerBoundBytes(), nat.lowerBoundBytes(), "seed " + seed);
        }
    }

    @Test
    void touchingLifetimesMayShareBytes() {
        // [0, 5) and [5, 9) never live together (half-open); [4, 6) overlaps both.
        long[] lower = {0, 5, 4};
        long[] upper = {5, 9, 6};
        long[] sizes = {100, 100, 10};
        Packing.Result r = Packing.pack(lower, upper, sizes, Packing.DEFAULT_EFFORT, EngineMode.fromSystemProperty());
        assertEquals(110, r.lowerBoundBytes(), "at most one 100-byte buffer is live at a time");
        assertNoTwoLiveBuffersShareBytes(new Problem(lower, upper, sizes), r.offsets());
        assertEquals(4, r.numPositions(), "the times 0, 4, 5 and 8 (each lower and upper - 1) are the positions");
    }

    @Test
    void anEmptyProblemHasAnEmptyArena() {
        Packing.Result r = Packing.pack(new long[0], new long[0], new long[0], 0, EngineMode.fromSystemProperty());
        assertEquals(0, r.arenaBytes());
        assertEquals(0, r.lowerBoundBytes());
        assertEquals(0, r.size());
    }

    @Test
    void badProblemsAreRejectedNamingTheBuffer() {
        EngineMode e = EngineMode.fromSystemProperty();
        assertMessage("buffer 1 lives [5, 5): upper must be greater than lower",
                () -> Packing.pack(new long[] {0, 5}, new long[] {1, 5}, new long[] {1, 1}, 0, e));
        assertMessage("buffer 0 has a negative size -3",
                () -> Packing.pack(new long[] {0}, new long[] {1}, new long[] {-3}, 0, e));
        assertMessage("need one entry per buffer; got 2, 1 and 1",
                () -> Packing.pack(new long[] {0, 0}, new long[] {1}, new long[] {1}, 0, e));
        assertMessage("effort must be in [0, 1000], got -1",
                () -> Packing.pack(new long[] {0}, new long[] {1}, new long[] {1}, -1, e));
    }

    /** One arena of 2^63-1 bytes holds any number of buffers of that size that are never alive together. */
    @Test
    void disjointBuffersWhoseSizesSumPastALongStillPack() {
        long max = Long.MAX_VALUE;
        long[] lower = {0, 5, 2, 9, 5};
        long[] upper = {5, 9, 3, 10, 6};
        long[] sizes = {max - 8, max, 8, max, 0};
        Packing.Result r = Packing.pack(lower, upper, sizes, Packing.DEFAULT_EFFORT, EngineMode.fromSystemProperty());
        assertEquals(max, r.arenaBytes(), "the largest buffer alone sets the arena");
        assertEquals(max, r.lowerBoundBytes());
        assertEquals(max, r.naiveBytes(), "the sum passes a long: it is reported as Long.MAX_VALUE");
        assertEquals(6, r.numPositions(), "the times 0, 2, 4, 5, 8 and 9");
        assertNoTwoLiveBuffersShareBytes(new Problem(lower, upper, sizes), r.offsets());
        for (int i = 0; i < sizes.length; i++) {
            assertTrue(r.offset(i) >= 0 && r.offset(i) <= max - sizes[i], "buffer " + i + " ends inside a long");
        }
    }

    /** Groups of buffers never alive together with another group pack each as they would alone. */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("groupSeeds")
    void eachTimeGroupPacksAsItWouldAlone(long seed) {
        Problem a = oneGroup(Problem.random(seed));
        Problem b = Problem.random(seed + 1);
        long shift = Arrays.stream(a.upper()).max().orElseThrow() - Arrays.stream(b.lower()).min().orElseThrow();
        int n = a.sizes().length + b.sizes().length + 1;
        long[] lower = new long[n];
        long[] upper = new long[n];
        long[] sizes = new long[n];
        long bigStart = shift + Arrays.stream(b.upper()).max().orElseThrow();
        for (int i = 0; i < n; i++) {
            boolean inA = i < a.sizes().length;
            int k = inA ? i : i - a.sizes().length;
            if (i == n - 1) { // a third group: one buffer big enough that the sum passes a long
                lower[i] = bigStart;
                upper[i] = bigStart + 1;
                sizes[i] = Long.MAX_VALUE;
                continue;
            }
            lower[i] = inA ? a.lower()[k] : b.lower()[k] + shift;
            upper[i] = inA ? a.upper()[k] : b.upper()[k] + shift;
            sizes[i] = inA ? a.sizes()[k] : b.sizes()[k];
        }
        EngineMode e = EngineMode.fromSystemProperty();
        Packing.Result all = Packing.pack(lower, upper, sizes, 2, e);
        Packing.Result alone = Packing.pack(a.lower(), a.upper(), a.sizes(), 2, e);
        for (int i = 0; i < a.sizes().length; i++) {
            assertEquals(alone.offset(i), all.offset(i), "buffer " + i);
        }
        assertEquals(0, all.offset(n - 1));
        assertEquals(Long.MAX_VALUE, all.arenaBytes());
        assertNoTwoLiveBuffersShareBytes(new Problem(lower, upper, sizes), all.offsets());
    }

    /** {@code p} with one more buffer, of zero bytes, alive from its first time to its last: one time group. */
    private static Problem oneGroup(Problem p) {
        int n = p.sizes().length;
        long[] lower = Arrays.copyOf(p.lower(), n + 1);
        long[] upper = Arrays.copyOf(p.upper(), n + 1);
        lower[n] = Arrays.stream(p.lower()).min().orElseThrow();
        upper[n] = Arrays.stream(p.upper()).max().orElseThrow();
        return new Problem(lower, upper, Arrays.copyOf(p.sizes(), n + 1));
    }

    /** Bytes alive together past 2^63-1 fit no arena: refused naming the buffer and the time. */
    @Test
    void bytesAliveTogetherPastALongAreRefusedNamingTheBufferAndTime() {
        EngineMode e = EngineMode.fromSystemProperty();
        InvalidSizeException ex = assertThrows(InvalidSizeException.class, () -> Packing.pack(new long[] {0, 7, 3},
                new long[] {4, 9, 8}, new long[] {Long.MAX_VALUE - 1, 1, 2}, 0, e));
        assertEquals("buffer 2 (2 bytes from time 3) brings the bytes alive together at time 3 past "
                + "9223372036854775807; no arena of 64-bit offsets holds them: make those buffers smaller or end some"
                + " sooner", ex.getMessage());
    }

    /**
     * A chain of overlapping lifetimes whose sizes sum past a long, though fewer bytes are alive at
     * once: the engines cannot place it, and the refusal says why.
     */
    @Test
    void aChainWhoseSumPassesALongIsRefusedSayingWhy() {
        long half = (1L << 62) + 1;
        InvalidSizeException ex = assertThrows(InvalidSizeException.class, () -> Packing.pack(new long[] {0, 1, 2},
                new long[] {2, 3, 4}, new long[] {half, 1, half}, 0, EngineMode.fromSystemProperty()));
        assertTrue(ex.getMessage().startsWith("the buffers alive from time 0 to 4 (buffer 0 first) overlap in one chain"
                + " whose sizes sum past 9223372036854775807 bytes, though at most " + (half + 1) + " are alive at once;"),
                ex.getMessage());
    }

    private static void assertMessage(String fragment, Runnable call) {
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, call::run);
        assertTrue(ex.getMessage().contains(fragment), ex.getMessage());
    }

    /** Pair by pair on the original times: live together ({@code [lower, upper)} intersect) means disjoint bytes. */
    private static void assertNoTwoLiveBuffersShareBytes(Problem p, long[] offset) {
        long[] lo = p.lower();
        long[] up = p.upper();
        long[] size = p.sizes();
        for (int i = 0; i < size.length; i++) {
            for (int j = i + 1; j < size.length; j++) {
                boolean live = lo[i] < up[j] && lo[j] < up[i];
                boolean share = size[i] > 0 && size[j] > 0 && offset[i] < offset[j] + size[j]
                        && offset[j] < offset[i] + size[i];
                assertTrue(!(live && share), "buffers " + i + " and " + j + " are live together and share bytes");
            }
        }
    }

    /** The most bytes live at one time: at every start time, the sum of the buffers alive then. */
    private static long maxLiveBytes(Problem p) {
        long max = 0;
        for (int i = 0; i < p.sizes().length; i++) {
            long t = p.lower()[i];
            long live = 0;
            for (int j = 0; j < p.sizes().length; j++) {
                if (p.lower()[j] <= t && t < p.upper()[j]) {
                    live += p.sizes()[j];
                }
            }
            max = Math.max(max, live);
        }
        return max;
    }
}
