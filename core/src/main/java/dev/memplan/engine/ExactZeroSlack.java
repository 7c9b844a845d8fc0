// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import dev.memplan.engine.ExactSearchArrays.Ints;
import java.util.Arrays;

/**
 * The exact search's zero-slack rule (exact_zero_slack.h): the bottom-left rule of perfect
 * rectangle packing, as one sweep after a placement and as one pass over the candidates at an offset
 * before any of them is placed.
 *
 * <p>The rule over the search's state, which {@link #bind} points it at once per run: a section
 * tight at o (no slack between max(o, floor) and the capacity for its unplaced bytes) must have its
 * byte o covered by a buffer placed exactly at o later, so of higher rank, at min offset o; those
 * are apart in time, so together they must cover every tight section.
 */
final class ExactZeroSlack {
    private final ExactInstance in;
    private long capacity;
    private long[] offset;
    private long[] minOffset;
    private long[] floor;
    private long[] total;
    private int[] rank;
    private int[] startingAt;
    private int[] endingAt;
    private int[] nextStarting;
    private int[] nextEnding;
    private final Ints work = new Ints();
    private boolean[] reach;
    private boolean[] reachBack;

    ExactZeroSlack(ExactInstance in) {
        this.in = in;
    }

    void bind(long cap, long[] offsetOf, long[] minOffsetOf, long[] floorOf, long[] totalOf, int[] rankOf) {
        capacity = cap;
        offset = offsetOf;
        minOffset = minOffsetOf;
        floor = floorOf;
        total = totalOf;
        rank = rankOf;
        startingAt = new int[in.numSections + 1];
        endingAt = new int[in.numSections + 1];
        reach = new boolean[in.numSections + 1];
        reachBack = new boolean[in.numSections + 1];
        nextStarting = new int[in.n];
        nextEnding = new int[in.n];
        Arrays.fill(startingAt, -1);
        Arrays.fill(endingAt, -1);
        Arrays.fill(nextStarting, -1);
        Arrays.fill(nextEnding, -1);
    }

    boolean tight(int s, long o) {
        return total[s] > 0 && floor[s] <= o && o + total[s] == capacity;
    }

    /**
     * After a placement at o of rank r, in the context's sections [lo, hi) and buffers
     * list[begin, end): the unplaced buffers at min offset o of rank above r can cover every tight
     * section at once, by a left-to-right sweep over the sections that reaches their end only if such
     * disjoint buffers exist.
     */
    boolean covers(int lo, int hi, int[] list, int begin, int end, long o, int r) {
        int s = lo;
        while (s < hi && !tight(s, o)) {
            ++s;
        }
        if (s == hi) {
            return true;
        }
        clear(hi - lo);
        for (int k = begin; k < end; ++k) {
            int j = list[k];
            if (offset[j] >= 0 || minOffset[j] != o || rank[j] <= r) {
                continue;
            }
            nextStarting[j] = startingAt[in.secLo[j] - lo];
            startingAt[in.secLo[j] - lo] = j;
        }
        reach[0] = true;
        for (s = lo; s < hi; ++s) {
            int a = s - lo;
            if (!reach[a]) {
                continue;
            }
            if (!tight(s, o)) {
                reach[a + 1] = true; // a section with slack may stay uncovered at o
            }
            for (int j = startingAt[a]; j >= 0; j = nextStarting[j]) {
                reach[in.secHi[j] - lo] = true;
            }
        }
        return reach[hi - lo];
    }

    /**
     * Before placing any of them: the verdict {@link #covers} would give after placing each
     * candidate cands[k], k in [first, last), all at min offset o in ascending rank. Writes it to
     * pass[k]. The buffers that could cover for cands[k] are the later candidates apart from it in
     * time, so left of its sections or right of them: it passes when the sweep from the context's
     * start reaches its first section and the sweep from the end reaches past its last. Taken from the
     * last candidate down, each adds one buffer and the sweeps only grow: the group costs one pass over
     * its sections and candidates. (A placement covers() refuses is refused by this pass too, also
     * where section inference would have refused it first: a tight section apart from the candidate
     * whose floor the placement lifts loses its coverers at o.)
     */
    void markPassing(int lo, int hi, int[] cands, int first, int last, long o, boolean[] pass) {
        boolean any = false;
        for (int s = lo; s < hi && !any; ++s) {
            any = tight(s, o);
        }
        if (!any) {
            for (int k = first; k < last; ++k) {
                pass[k] = true;
            }
            return;
        }
        int width = hi - lo;
        clear(width);
        grow(lo, width, 0, o, false);
        grow(lo, width, width, o, true);
        for (int k = last - 1; k >= first; --k) {
            int i = cands[k];
            int a = in.secLo[i] - lo;
            int b = in.secHi[i] - lo;
            pass[k] = reach[a] && reachBack[b];
            nextStarting[i] = startingAt[a];
            startingAt[a] = i;
            nextEnding[i] = endingAt[b];
            endingAt[b] = i;
            if (reach[a]) {
                grow(lo, width, b, o, false);
            }
            if (reachBack[b]) {
                grow(lo, width, a, o, true);
            }
        }
    }

    private void clear(int width) {
        for (int a = 0; a <= width; ++a) {
            startingAt[a] = -1;
            endingAt[a] = -1;
            reach[a] = false;
            reachBack[a] = false;
        }
    }

    // Marks point x reached (from the left, or from the right when back) and everything it reaches:
    // the next point past a section with slack, and the far end of every buffer added at x.
    private void grow(int lo, int width, int x, long o, boolean back) {
        boolean[] r = back ? reachBack : reach;
        if (r[x]) {
            return;
        }
        r[x] = true;
        work.size = 0;
        work.push(x);
        while (work.size > 0) {
            int y = work.a[--work.size];
            int step = back ? y - 1 : y + 1;
            if ((back ? y > 0 : y < width) && !tight(lo + (back ? step : y), o) && !r[step]) {
                r[step] = true;
                work.push(step);
            }
            for (int j = back ? endingAt[y] : startingAt[y]; j >= 0; j = back ? nextEnding[j] : nextStarting[j]) {
                int z = (back ? in.secLo[j] : in.secHi[j]) - lo;
                if (!r[z]) {
                    r[z] = true;
                    work.push(z);
                }
            }
        }
    }
}
