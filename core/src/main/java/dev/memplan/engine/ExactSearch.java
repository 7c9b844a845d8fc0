// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import dev.memplan.engine.ExactSearchArrays.ChangeLog;
import dev.memplan.engine.ExactSearchArrays.Ints;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * The exact mode's decision search at one capacity (exact_search.h): a depth-first search over
 * canonical solutions with section inference, dominance, dynamic ordering, hatless pruning and
 * decomposition at zero cuts (MiniMalloc's ideas), as a loop over an explicit stack.
 */
final class ExactSearch {
    // What one search at a fixed capacity ended with (kFound, ... in exact_search.h).
    static final int FOUND = 0;
    static final int INFEASIBLE = 1;
    static final int ABORTED = 2;
    static final int TIMED_OUT = 3;

    // The static preorders the restarts take in turn (MiniMalloc's WAT, TAW, TWA); LSW takes TWA's
    // turn where TWA would rank the instance as WAT does (exact_search.h says why).
    static final int NUM_PREORDERS = 3;
    private static final String[] PREORDERS = {"WAT", "TAW", "TWA"};
    private static final String REPEAT_REPLACEMENT = "LSW";

    // Nodes between two looks at the clock: a node of a few thousand buffers costs up to a few
    // hundred microseconds, so 1,024 of them ran up to a fifth of a second past a limit.
    static final long CLOCK_EVERY = 64;

    // A partition being solved (exact_search.h's Context).
    record Context(int begin, int end, int secLo, int secHi, int frameBase, int split) {
    }

    // One node of the search (exact_search.h's Frame).
    static final class Frame {
        int ctx;
        long minOffset;
        int minRank;
        int candBegin;
        int candEnd;
        int cursor;
        int passingEnd; // the candidates up to here have the zero-slack rule's verdict
        int placed = -1;
        boolean hatless;
        boolean cut;
        int offsetMark;
        int floorMark;
        long maxTotal;
        long maxFloorTotal;

        Frame(int ctx, long minOffset, int minRank, int cand) {
            this.ctx = ctx;
            this.minOffset = minOffset;
            this.minRank = minRank;
            this.candBegin = cand;
            this.candEnd = cand;
            this.cursor = cand;
            this.passingEnd = cand;
        }
    }

    // A partition split at zero cuts (exact_search.h's Split).
    static final class Split {
        final int frame;
        final int ctx;
        final int cutBegin;
        int cutEnd;
        int next;

        Split(int frame, int ctx, int cutBegin) {
            this.frame = frame;
            this.ctx = ctx;
            this.cutBegin = cutBegin;
        }
    }

    private static final int NEXT_PIECE = 0;
    private static final int ENTER = 1;
    private static final int NEXT = 2;
    private static final int FAIL = 3;

    private final ExactInstance in;
    long nodes;
    long[] solution;
    private long capacity;
    private int preorder;
    private final boolean twaRepeatsWat;
    private long[] offset;
    private long[] minOffset;
    private long[] floor;
    private long[] total;
    private final long[] keyT;
    private int[] rank;
    private int[] cuts;
    private final ExactZeroSlack zeroSlack;
    private boolean[] passing = new boolean[16]; // markPassing's verdict on each candidate of cands
    private final ArrayList<Frame> frames = new ArrayList<>();
    private final ArrayList<Context> contexts = new ArrayList<>();
    private final ArrayList<Split> splits = new ArrayList<>();
    private final Ints cutPoints = new Ints();
    private final Ints lists = new Ints();
    private final Ints cands = new Ints();
    private final Ints sortScratch = new Ints();
    private final ChangeLog offsetLog = new ChangeLog();
    private final ChangeLog floorLog = new ChangeLog();
    // The current frame and split: next() and succeed() move them (C++ passes pointers).
    private int frame;
    private int split;

    ExactSearch(ExactInstance in) {
        this.in = in;
        this.keyT = new long[in.n];
        this.zeroSlack = new ExactZeroSlack(in);
        // Whether TWA repeats WAT on the whole instance: then its turn goes to LSW.
        int[] wat = new int[in.n];
        int[] twa = new int[in.n];
        for (int i = 0; i < in.n; ++i) {
            long t = 0;
            for (int s = in.secLo[i]; s < in.secHi[i]; ++s) {
                t = Math.max(t, in.total0[s]);
            }
            keyT[i] = t;
            wat[i] = i;
            twa[i] = i;
        }
        ExactSearchArrays.sort(wat, 0, in.n, (a, b) -> before(PREORDERS[0], a, b), sortScratch);
        ExactSearchArrays.sort(twa, 0, in.n, (a, b) -> before(PREORDERS[2], a, b), sortScratch);
        twaRepeatsWat = Arrays.equals(wat, twa);
    }

    int run(long cap, int order, long nodeLimit, boolean timed, long deadline) {
        int n = in.n;
        capacity = cap;
        preorder = order;
        nodes = 0;
        offset = new long[n];
        Arrays.fill(offset, -1);
        minOffset = new long[n];
        rank = new int[n];
        solution = new long[n];
        floor = new long[in.numSections];
        total = in.total0.clone();
        cuts = in.cuts0.clone();
        frames.clear();
        contexts.clear();
        splits.clear();
        cutPoints.size = 0;
        lists.size = 0;
        cands.size = 0;
        offsetLog.size = 0;
        floorLog.size = 0;
        zeroSlack.bind(capacity, offset, minOffset, floor, total, rank);
        openSplit(-1, -1, 0, in.numSections);
        split = 0;
        frame = -1;
        int state = NEXT_PIECE;
        while (true) {
            switch (state) {
                case NEXT_PIECE:
                    if (!nextPiece(split)) {
                        Split done = splits.get(splits.size() - 1);
                        cutPoints.size = done.cutBegin;
                        splits.remove(splits.size() - 1);
                        if (done.frame < 0) {
                            return FOUND;
                        }
                        state = succeed(frames.get(done.frame).ctx);
                        break;
                    }
                    frame = frames.size() - 1;
                    state = ENTER;
                    break;
                case ENTER:
                    if (nodes >= nodeLimit) {
                        return ABORTED;
                    }
                    ++nodes;
                    if (timed && nodes % CLOCK_EVERY == 0 && System.nanoTime() - deadline >= 0) {
                        return TIMED_OUT;
                    }
                    if (!gather(frame)) {
                        state = succeed(frames.get(frame).ctx);
                        break;
                    }
                    state = NEXT;
                    break;
                case NEXT:
                    state = next();
                    break;
                case FAIL: {
                    Frame f = frames.get(frames.size() - 1);
                    cands.size = f.candBegin;
                    frames.remove(frames.size() - 1);
                    Context c = contexts.get(f.ctx);
                    if (frame > c.frameBase()) {
                        frame -= 1;
                        state = NEXT;
                        break;
                    }
                    int s = c.split();
                    closeContext();
                    Split failed = splits.get(s);
                    cutPoints.size = failed.cutBegin;
                    splits.remove(splits.size() - 1);
                    if (failed.frame < 0) {
                        return INFEASIBLE;
                    }
                    frame = failed.frame;
                    state = NEXT;
                    break;
                }
                default:
                    return INFEASIBLE; // unreachable
            }
        }
    }

    // Opens a split of context ctx's sections [lo, hi) at every zero cut inside them.
    private void openSplit(int atFrame, int ctx, int lo, int hi) {
        Split s = new Split(atFrame, ctx, cutPoints.size);
        cutPoints.push(lo);
        for (int k = lo; k + 1 < hi; ++k) {
            if (cuts[k] == 0) {
                cutPoints.push(k + 1);
            }
        }
        cutPoints.push(hi);
        s.cutEnd = cutPoints.size;
        splits.add(s);
    }

    // Opens the next non-empty piece of the top split as a context with its root frame;
    // false when every piece is solved.
    private boolean nextPiece(int at) {
        Split s = splits.get(at);
        while (s.cutBegin + s.next + 1 < s.cutEnd) {
            int lo = cutPoints.a[s.cutBegin + s.next];
            int hi = cutPoints.a[s.cutBegin + s.next + 1];
            s.next++;
            int begin = lists.size;
            if (s.ctx < 0) {
                for (int i = 0; i < in.n; ++i) {
                    takeIfInside(i, lo, hi);
                }
            } else {
                Context parent = contexts.get(s.ctx);
                for (int k = parent.begin(); k < parent.end(); ++k) {
                    takeIfInside(lists.a[k], lo, hi);
                }
            }
            int end = lists.size;
            if (begin == end) {
                continue;
            }
            preorder(begin, end);
            contexts.add(new Context(begin, end, lo, hi, frames.size(), at));
            frames.add(new Frame(contexts.size() - 1, 0, 0, cands.size));
            return true;
        }
        return false;
    }

    private void takeIfInside(int i, int lo, int hi) {
        if (offset[i] < 0 && in.secLo[i] < hi && lo < in.secHi[i]) {
            lists.push(i);
        }
    }

    // Sorts a new context's buffers by the preorder and ranks them (ties: input order).
    private void preorder(int begin, int end) {
        for (int k = begin; k < end; ++k) {
            int i = lists.a[k];
            long t = 0;
            for (int s = in.secLo[i]; s < in.secHi[i]; ++s) {
                t = Math.max(t, total[s]);
            }
            keyT[i] = t;
        }
        String order = preorder == 2 && twaRepeatsWat ? REPEAT_REPLACEMENT : PREORDERS[preorder];
        ExactSearchArrays.sort(lists.a, begin, end, (a, b) -> before(order, a, b), sortScratch);
        for (int k = begin; k < end; ++k) {
            rank[lists.a[k]] = k - begin;
        }
    }

    // Whether buffer a comes before b in a preorder: its keys descending, ties by index.
    private boolean before(String order, int a, int b) {
        for (int c = 0; c < 3; ++c) {
            long x = key(order.charAt(c), a);
            long y = key(order.charAt(c), b);
            if (x != y) {
                return x > y;
            }
        }
        return a < b;
    }

    private long key(char c, int i) {
        if (c == 'W') {
            return in.width[i];
        }
        if (c == 'A') {
            return in.area[i];
        }
        if (c == 'S') {
            return in.size[i];
        }
        if (c == 'L') {
            return -in.secLo[i]; // the earliest first
        }
        return keyT[i];
    }

    // Closes the top context and gives its parent's buffers their ranks back.
    private void closeContext() {
        Context c = contexts.get(contexts.size() - 1);
        lists.size = c.begin();
        contexts.remove(contexts.size() - 1);
        int parent = splits.get(c.split()).ctx;
        if (parent >= 0) {
            Context p = contexts.get(parent);
            for (int k = p.begin(); k < p.end(); ++k) {
                rank[lists.a[k]] = k - p.begin();
            }
        }
    }

    // The frame's candidates: unplaced buffers below the lowest top any of them could
    // reach (dominance), not before the frame's canonical floor, by (offset, rank).
    // False when the context has nothing left to place.
    private boolean gather(int at) {
        Frame f = frames.get(at);
        Context c = contexts.get(f.ctx);
        long minHeight = Long.MAX_VALUE;
        boolean any = false;
        for (int k = c.begin(); k < c.end(); ++k) {
            int i = lists.a[k];
            if (offset[i] >= 0) {
                continue;
            }
            any = true;
            minHeight = Math.min(minHeight, minOffset[i] + in.size[i]);
        }
        if (!any) {
            return false;
        }
        f.candBegin = cands.size;
        for (int k = c.begin(); k < c.end(); ++k) {
            int i = lists.a[k];
            if (offset[i] >= 0) {
                continue;
            }
            long o = minOffset[i];
            if (o >= minHeight) {
                continue;
            }
            if (o < f.minOffset || (o == f.minOffset && rank[i] < f.minRank)) {
                continue;
            }
            cands.push(i);
        }
        f.candEnd = cands.size;
        f.passingEnd = f.candBegin;
        if (passing.length < cands.size) {
            passing = Arrays.copyOf(passing, Math.max(cands.size, 2 * passing.length));
        }
        f.maxTotal = 0;
        f.maxFloorTotal = 0;
        for (int s = c.secLo(); s < c.secHi(); ++s) {
            f.maxTotal = Math.max(f.maxTotal, total[s]);
            f.maxFloorTotal = Math.max(f.maxFloorTotal, floor[s] + total[s]);
        }
        ExactSearchArrays.sort(cands.a, f.candBegin, cands.size, (a, b) -> {
            if (minOffset[a] != minOffset[b]) {
                return minOffset[a] < minOffset[b];
            }
            return rank[a] < rank[b];
        }, sortScratch);
        f.cursor = f.candBegin;
        return true;
    }

    // Undoes the frame's placement, then places its next candidate; the next state.
    private int next() {
        Frame f = frames.get(frame);
        if (f.placed >= 0) {
            boolean hatless = f.hatless;
            undo(f);
            if (hatless) {
                return FAIL;
            }
        }
        while (f.cursor < f.candEnd) {
            int k = f.cursor++;
            int i = cands.a[k];
            long o = minOffset[i];
            // Section inference before placing: a section left without room above max(o, floor) stays so
            // through the placement, and o only grows along the candidates: the frame is done.
            if (Math.max(f.maxFloorTotal, o + f.maxTotal) > capacity) {
                return FAIL;
            }
            if (k >= f.passingEnd) {
                // The zero-slack rule's verdict on every candidate at o at once, before placing any.
                f.passingEnd = k;
                while (f.passingEnd < f.candEnd && minOffset[cands.a[f.passingEnd]] == o) {
                    f.passingEnd++;
                }
                Context c = contexts.get(f.ctx);
                zeroSlack.markPassing(c.secLo(), c.secHi(), cands.a, k, f.passingEnd, o, passing);
            }
            if (!passing[k]) {
                // fits() would refuse the placement: only whether it raises nobody is left to see
                if (!raisesSomeone(i)) {
                    return FAIL;
                }
                continue;
            }
            place(f, i, o);
            if (!fits(contexts.get(f.ctx), f, i, o)) {
                boolean hatless = f.hatless;
                undo(f);
                if (hatless) {
                    return FAIL; // a buffer that raised nobody has no better alternative
                }
                continue;
            }
            // Lower the cuts the buffer held up; a zero inside its range splits the partition.
            f.cut = true;
            boolean splitHere = false;
            for (int s = in.secLo[i]; s + 1 < in.secHi[i]; ++s) {
                if (--cuts[s] == 0) {
                    splitHere = true;
                }
            }
            Context c = contexts.get(f.ctx);
            if (splitHere) {
                openSplit(frame, f.ctx, c.secLo(), c.secHi());
                split = splits.size() - 1;
                return NEXT_PIECE;
            }
            int cb = cands.size;
            frames.add(new Frame(f.ctx, o, rank[i], cb));
            frame = frames.size() - 1;
            return ENTER;
        }
        return FAIL;
    }

    // Places buffer i at offset o: raises its unplaced neighbours' offsets, lifts the
    // floors of its sections, and of every section whose lowest unplaced offset rose.
    private void place(Frame f, int i, long o) {
        f.placed = i;
        f.offsetMark = offsetLog.size;
        f.floorMark = floorLog.size;
        offset[i] = o;
        solution[i] = o;
        long top = o + in.size[i];
        boolean hatless = true;
        // The sections whose floor may rise: the buffer's own and those of every neighbour it raised.
        // Each neighbour's sections meet the buffer's, so together they are one range.
        int lo = in.secLo[i];
        int hi = in.secHi[i];
        for (int k = in.overlapStart[i]; k < in.overlapStart[i + 1]; ++k) {
            int j = in.overlap[k];
            if (offset[j] >= 0) {
                continue;
            }
            hatless = false;
            if (minOffset[j] >= top) {
                continue;
            }
            offsetLog.push(j, minOffset[j]);
            minOffset[j] = top;
            lo = Math.min(lo, in.secLo[j]);
            hi = Math.max(hi, in.secHi[j]);
        }
        f.hatless = hatless;
        for (int s = in.secLo[i]; s < in.secHi[i]; ++s) {
            floorLog.push(s, floor[s]);
            floor[s] = top;
            total[s] -= in.size[i];
        }
        for (int s = lo; s < hi; ++s) {
            // The lowest unplaced offset in s; the scan stops at one not above the floor,
            // since then the floor stays.
            long fl = floor[s];
            long lowest = Long.MAX_VALUE;
            for (int k = in.memberStart[s]; k < in.memberStart[s + 1]; ++k) {
                int j = in.member[k];
                if (offset[j] >= 0) {
                    continue;
                }
                lowest = Math.min(lowest, minOffset[j]);
                if (lowest <= fl) {
                    break;
                }
            }
            if (lowest != Long.MAX_VALUE && fl < lowest) {
                floorLog.push(s, floor[s]);
                floor[s] = lowest;
            }
        }
    }

    private boolean raisesSomeone(int i) {
        for (int k = in.overlapStart[i]; k < in.overlapStart[i + 1]; ++k) {
            if (offset[in.overlap[k]] < 0) {
                return true;
            }
        }
        return false;
    }

    private void undo(Frame f) {
        int i = f.placed;
        for (int k = floorLog.size - 1; k >= f.floorMark; --k) {
            floor[floorLog.index[k]] = floorLog.value[k];
        }
        floorLog.size = f.floorMark;
        for (int s = in.secLo[i]; s < in.secHi[i]; ++s) {
            total[s] += in.size[i];
        }
        for (int k = offsetLog.size - 1; k >= f.offsetMark; --k) {
            minOffset[offsetLog.index[k]] = offsetLog.value[k];
        }
        offsetLog.size = f.offsetMark;
        if (f.cut) {
            for (int s = in.secLo[i]; s + 1 < in.secHi[i]; ++s) {
                cuts[s]++;
            }
        }
        offset[i] = -1;
        f.placed = -1;
        f.cut = false;
    }

    // Section inference: every section of the context must still hold its unplaced bytes
    // above its floor (and above the offset just placed, since offsets only rise). The frame's
    // maxima checked the sections the placement left alone; the log holds the others.
    private boolean fits(Context c, Frame f, int i, long o) {
        for (int k = f.floorMark; k < floorLog.size; ++k) {
            int s = floorLog.index[k];
            if (s >= c.secLo() && s < c.secHi() && Math.max(o, floor[s]) + total[s] > capacity) {
                return false;
            }
        }
        return zeroSlack.covers(c.secLo(), c.secHi(), lists.a, c.begin(), c.end(), o, rank[i]);
    }

    // The context solved: undo its frames' placements, close it, and go on with its split.
    private int succeed(int ctx) {
        int base = contexts.get(ctx).frameBase();
        while (frames.size() > base) {
            Frame f = frames.get(frames.size() - 1);
            if (f.placed >= 0) {
                undo(f);
            }
            cands.size = f.candBegin;
            frames.remove(frames.size() - 1);
        }
        split = contexts.get(ctx).split();
        closeContext();
        return NEXT_PIECE;
    }
}
