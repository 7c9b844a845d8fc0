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
        assertMessage("the sizes overflow a 64-bit byte count at buffer 1",
                () -> Packing.pack(new long[] {0, 0}, new long[] {1, 1}, new long[] {Long.MAX_VALUE, 1}, 0, e));
        assertMessage("need one entry per buffer; got 2, 1 and 1",
                () -> Packing.pack(new long[] {0, 0}, new long[] {1}, new long[] {1}, 0, e));
        assertMessage("effort must be in [0, 1000], got -1",
                () -> Packing.pack(new long[] {0}, new long[] {1}, new long[] {1}, -1, e));
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
