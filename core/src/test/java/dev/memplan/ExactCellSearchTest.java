// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ExactPackingTest.Problem;
import java.time.Duration;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exact search's pruning rules against a search that shares nothing with it, on near-tilings
 * of 10 to 30 pieces: too many for trying every offset of every buffer, and where the zero-slack
 * rule and section inference cut most. The reference fills the time x bytes grid one cell at a
 * time, lowest row first, then earliest step: the first empty cell is either left empty, if its
 * step still has bytes to spare, or covered by a buffer placed at its byte that starts at its step
 * (anything lower or earlier is already decided). A rule that cuts off a packing makes the exact
 * search prove a larger optimum than this one finds.
 */
class ExactCellSearchTest {

    static LongStream seeds() {
        return LongStream.range(0, 300);
    }

    /** A guillotine tiling with one to three pieces grown or shrunk by a byte or a step. */
    static Problem nearTiling(long seed) {
        Random r = new Random(seed);
        Problem t = Problem.guillotine(seed, 10 + r.nextInt(21), 8 + r.nextInt(9), 6 + r.nextInt(9));
        long[] lower = t.lower().clone();
        long[] upper = t.upper().clone();
        long[] sizes = t.sizes().clone();
        int changes = 1 + r.nextInt(3);
        for (int c = 0; c < changes; c++) {
            int k = r.nextInt(sizes.length);
            switch (r.nextInt(4)) {
                case 0 -> sizes[k]++;
                case 1 -> sizes[k] = Math.max(1, sizes[k] - 1);
                case 2 -> upper[k]++;
                default -> lower[k] = Math.max(0, lower[k] - 1);
            }
        }
        return new Problem(lower, upper, sizes);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void nearTilingsMatchACellByCellSearch(long seed) {
        Problem p = nearTiling(seed);
        Packing.ExactResult r = Packing.packExact(p.lower(), p.upper(), p.sizes(),
                new Packing.ExactLimits(1_000_000, Duration.ZERO, -1), EngineMode.fromSystemProperty());
        ExactPackingTest.check(p, r);
        assertTrue(r.provenOptimal(), "seed " + seed + ": " + r);
        assertEquals(cellSearchOptimum(p), r.plan().arenaBytes(), "seed " + seed);
    }

    /** The smallest capacity, from the largest live total up, at which the cell search fits. */
    static long cellSearchOptimum(Problem p) {
        int horizon = (int) max(p.upper());
        long[] live = new long[horizon];
        for (int i = 0; i < p.sizes().length; i++) {
            for (long t = p.lower()[i]; t < p.upper()[i]; t++) {
                live[(int) t] += p.sizes()[i];
            }
        }
        long cap = max(live);
        while (!new CellSearch(p, horizon, (int) cap, live).fits()) {
            cap++;
        }
        return cap;
    }

    private static long max(long[] a) {
        long m = 0;
        for (long v : a) {
            m = Math.max(m, v);
        }
        return m;
    }

    private static final class CellSearch {
        private final Problem p;
        private final int horizon;
        private final int cap;
        private final boolean[][] filled; // [byte][step]
        private final long[] spare; // bytes each step may still leave empty
        private final boolean[] placed;

        CellSearch(Problem p, int horizon, int cap, long[] live) {
            this.p = p;
            this.horizon = horizon;
            this.cap = cap;
            this.filled = new boolean[cap][horizon];
            this.spare = new long[horizon];
            for (int t = 0; t < horizon; t++) {
                spare[t] = cap - live[t];
            }
            this.placed = new boolean[p.sizes().length];
        }

        boolean fits() {
            return fill(0);
        }

        private boolean fill(int from) {
            int cell = from;
            while (cell < cap * horizon && filled[cell / horizon][cell % horizon]) {
                cell++;
            }
            if (cell == cap * horizon) {
                return true;
            }
            int y = cell / horizon;
            int t = cell % horizon;
            for (int k = 0; k < placed.length; k++) {
                if (placed[k] || p.lower()[k] != t || p.sizes()[k] == 0 || !free(k, y) || sameAsEarlier(k)) {
                    continue;
                }
                mark(k, y, true);
                if (fill(cell + 1)) {
                    return true;
                }
                mark(k, y, false);
            }
            if (spare[t] > 0) {
                spare[t]--;
                filled[y][t] = true;
                if (fill(cell + 1)) {
                    return true;
                }
                filled[y][t] = false;
                spare[t]++;
            }
            return false;
        }

        // An unplaced buffer like an earlier unplaced one would only repeat its branch.
        private boolean sameAsEarlier(int k) {
            for (int j = 0; j < k; j++) {
                if (!placed[j] && p.lower()[j] == p.lower()[k] && p.upper()[j] == p.upper()[k]
                        && p.sizes()[j] == p.sizes()[k]) {
                    return true;
                }
            }
            return false;
        }

        private boolean free(int k, int y) {
            if (y + p.sizes()[k] > cap) {
                return false;
            }
            for (long b = y; b < y + p.sizes()[k]; b++) {
                for (long t = p.lower()[k]; t < p.upper()[k]; t++) {
                    if (filled[(int) b][(int) t]) {
                        return false;
                    }
                }
            }
            return true;
        }

        private void mark(int k, int y, boolean on) {
            placed[k] = on;
            for (long b = y; b < y + p.sizes()[k]; b++) {
                for (long t = p.lower()[k]; t < p.upper()[k]; t++) {
                    filled[(int) b][(int) t] = on;
                }
            }
        }
    }
}
