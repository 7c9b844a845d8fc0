// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.ArrayList;
import java.util.Arrays;

/**
 * The exact mode of interval packing (docs/design.md §5c): a complete, deterministic search for
 * the smallest arena that holds every buffer. exact_packing.h is the same program, line for line.
 *
 * <p>The search is a depth-first search over canonical solutions (each buffer at the top of the
 * placed buffers it overlaps), with section inference, dominance, dynamic ordering, hatless
 * pruning, decomposition at zero cuts and restarts across three static preorders: the ideas of
 * MiniMalloc (Moffitt, ASPLOS 2024), written anew with an explicit stack. Capacities are tried on a
 * ladder between the proven bound and the best height found, starting from the caller's plan;
 * every search counts nodes, so a node limit gives the same answer everywhere; a time limit, when
 * it cuts a search, does not.
 */
public final class ExactPacking {
    // What one search at a fixed capacity ended with (kFound, ... in exact_packing.h).
    static final int FOUND = 0;
    static final int INFEASIBLE = 1;
    static final int ABORTED = 2;
    static final int TIMED_OUT = 3;

    /** The height is optimal. */
    public static final int PROVEN = 0;
    /** The node limit ran out: the best found, gap open. */
    public static final int NODE_LIMIT = 1;
    /** The time limit ran out: the best found, gap open. */
    public static final int TIME_LIMIT = 2;
    /** Too many overlaps to index: the caller's plan, gap open. */
    public static final int TOO_LARGE = 3;
    /** The height reached the caller's target: gap open. */
    public static final int TARGET_REACHED = 4;

    /** No target: search until proven or a limit. */
    public static final long NO_TARGET = -1;

    // The static preorders the restarts take in turn (MiniMalloc's WAT, TAW, TWA).
    static final int NUM_PREORDERS = 3;
    private static final String[] PREORDERS = {"WAT", "TAW", "TWA"};

    // Nodes between two looks at the clock.
    static final long CLOCK_EVERY = 1024;

    // The most overlap pairs and section memberships the search will index.
    static final long MAX_INDEX_ENTRIES = 1L << 25;

    // The rungs of the capacity ladder: the bound, then the bound plus the gap over 2^k.
    static final int NUM_RUNGS = 8;

    private ExactPacking() {
    }

    /**
     * An exact packing's answer.
     *
     * @param heightBytes     the arena of the best plan found
     * @param lowerBoundBytes no plan is lower: the live bound, raised by capacities proven infeasible
     * @param status          why it stopped: {@link #PROVEN}, {@link #NODE_LIMIT}, ...
     * @param nodes           search nodes spent
     * @param offsets         each buffer's offset in the best plan found
     */
    public record Result(long heightBytes, long lowerBoundBytes, int status, long nodes, long[] offsets) {
        /** Keeps a copy of {@code offsets}. */
        public Result {
            offsets = offsets.clone();
        }

        /** Each buffer's offset; a new array on every call. */
        @Override
        public long[] offsets() {
            return offsets.clone();
        }

        /** Whether the height is proven optimal. */
        public boolean proven() {
            return heightBytes == lowerBoundBytes;
        }
    }

    /**
     * Finds the smallest arena for buffers alive over {@code [lower[i], upper[i])} with
     * {@code size[i]} bytes, from the valid plan {@code seed} (memplan_exact_pack). The caller has
     * checked the arguments ({@link #check}).
     */
    static Result pack(long[] lower, long[] upper, long[] size, long[] seed, long nodeLimit, long timeLimitMillis,
                       long target) {
        int n = size.length;
        // Empty buffers take no bytes and touch nothing: they sit at 0 and stay out of the search
        // (its dominance rule assumes every buffer has a top above its offset).
        long[] offset = new long[n];
        int m = 0;
        for (int i = 0; i < n; ++i) {
            if (size[i] != 0) {
                m++;
            }
        }
        int[] kept = new int[m];
        long[] lo = new long[m];
        long[] up = new long[m];
        long[] sz = new long[m];
        long[] off = new long[m];
        for (int i = 0, k = 0; i < n; ++i) {
            if (size[i] == 0) {
                continue;
            }
            kept[k] = i;
            lo[k] = lower[i];
            up[k] = upper[i];
            sz[k] = size[i];
            off[k++] = seed[i];
        }
        Instance in = new Instance();
        boolean indexed = in.build(m, lo, up, sz);
        long height = heightOf(m, sz, off);
        if (!indexed) {
            scatter(kept, off, offset);
            return new Result(height, in.lowerBound, height == in.lowerBound ? PROVEN : TOO_LARGE, 0, offset);
        }
        // The seed must be a plan: no two overlapping buffers share a byte.
        for (int i = 0; i < m; ++i) {
            for (int k = in.overlapStart[i]; k < in.overlapStart[i + 1]; ++k) {
                int j = in.overlap[k];
                if (off[i] < off[j] + sz[j] && off[j] < off[i] + sz[i]) {
                    throw new IllegalArgumentException("the seed plan overlaps buffers " + kept[i] + " and " + kept[j]);
                }
            }
        }
        Optimizer opt = new Optimizer(in, nodeLimit, timeLimitMillis, target);
        height = opt.solve(off, height);
        scatter(kept, off, offset);
        return new Result(height, opt.bound, opt.status, opt.nodes, offset);
    }

    /**
     * Checks what both engines need before they search: equal lengths, {@code upper > lower},
     * sizes and seed offsets {@code >= 0}, no overflow, limits in range.
     */
    static void check(long[] lower, long[] upper, long[] size, long[] seed, long nodeLimit, long timeLimitMillis,
                      long target) {
        int n = size.length;
        if (lower.length != n || upper.length != n || seed.length != n) {
            throw new IllegalArgumentException("lower, upper, sizes and seed offsets need one entry per buffer; got "
                    + lower.length + ", " + upper.length + ", " + n + " and " + seed.length);
        }
        if (nodeLimit < 1) {
            throw new IllegalArgumentException("the node limit must be at least 1, got " + nodeLimit);
        }
        if (timeLimitMillis < 0) {
            throw new IllegalArgumentException("the time limit must be >= 0 ms (0: none), got " + timeLimitMillis);
        }
        if (target < NO_TARGET) {
            throw new IllegalArgumentException("the target must be >= 0 bytes (or -1: none), got " + target);
        }
        long naive = 0;
        for (int i = 0; i < n; i++) {
            if (upper[i] <= lower[i] || size[i] < 0 || seed[i] < 0) {
                throw new IllegalArgumentException("buffer " + i + " lives [" + lower[i] + ", " + upper[i] + ") with "
                        + size[i] + " bytes at offset " + seed[i] + ": need upper > lower and sizes, offsets >= 0");
            }
            try {
                Math.addExact(seed[i], size[i]);
                naive = Math.addExact(naive, size[i]);
                long width = Math.subtractExact(upper[i], lower[i]);
                Math.multiplyExact(width, Math.max(size[i], 1)); // the area key
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("buffer " + i + " overflows a 64-bit byte count or time span; "
                        + "use smaller times or sizes", e);
            }
        }
    }

    private static void scatter(int[] kept, long[] from, long[] to) {
        for (int k = 0; k < kept.length; ++k) {
            to[kept[k]] = from[k];
        }
    }

    static long heightOf(int n, long[] size, long[] offset) {
        long h = 0;
        for (int i = 0; i < n; ++i) {
            h = Math.max(h, offset[i] + size[i]);
        }
        return h;
    }

    /** The instance, indexed once (exact_packing.h's Instance). */
    static final class Instance {
        int n;
        int numSections;
        long[] size;
        long[] width;
        long[] area;
        int[] secLo;
        int[] secHi;
        long[] total0;
        int[] cuts0;
        int[] overlapStart;
        int[] overlap;
        int[] memberStart;
        int[] member;
        long lowerBound;

        boolean build(int count, long[] lower, long[] upper, long[] bytes) {
            n = count;
            size = bytes.clone();
            width = new long[n];
            area = new long[n];
            for (int i = 0; i < n; ++i) {
                width[i] = upper[i] - lower[i];
                area[i] = width[i] * size[i];
            }
            long[] ends = distinct(upper);
            numSections = ends.length;
            secLo = new int[n];
            secHi = new int[n];
            long memberships = 0;
            for (int i = 0; i < n; ++i) {
                // Section s (end time t) holds i when lower < t <= upper.
                secLo[i] = upperBound(ends, lower[i]);
                secHi[i] = upperBound(ends, upper[i]);
                memberships += secHi[i] - secLo[i];
            }
            // The bound first (a difference array): it is the answer's floor even when the
            // instance is too large to index.
            total0 = new long[numSections + 1];
            for (int i = 0; i < n; ++i) {
                total0[secLo[i]] += size[i];
                total0[secHi[i]] -= size[i];
            }
            for (int s = 0; s < numSections; ++s) {
                if (s > 0) {
                    total0[s] += total0[s - 1];
                }
                lowerBound = Math.max(lowerBound, total0[s]);
            }
            total0 = Arrays.copyOf(total0, numSections);
            if (memberships > MAX_INDEX_ENTRIES) {
                return false;
            }
            cuts0 = new int[numSections > 0 ? numSections - 1 : 0];
            memberStart = new int[numSections + 1];
            for (int i = 0; i < n; ++i) {
                for (int s = secLo[i]; s < secHi[i]; ++s) {
                    memberStart[s + 1]++;
                }
                for (int s = secLo[i]; s + 1 < secHi[i]; ++s) {
                    cuts0[s]++;
                }
            }
            for (int s = 0; s < numSections; ++s) {
                memberStart[s + 1] += memberStart[s];
            }
            member = new int[memberStart[numSections]];
            int[] cursor = Arrays.copyOf(memberStart, numSections);
            for (int i = 0; i < n; ++i) {
                for (int s = secLo[i]; s < secHi[i]; ++s) {
                    member[cursor[s]++] = i;
                }
            }
            // Two buffers overlap exactly when they share a section: i overlaps the members of
            // its first section that started before it, and every buffer starting inside its range.
            int[] startingStart = new int[numSections + 1];
            for (int i = 0; i < n; ++i) {
                startingStart[secLo[i] + 1]++;
            }
            for (int s = 0; s < numSections; ++s) {
                startingStart[s + 1] += startingStart[s];
            }
            int[] starting = new int[n];
            int[] at = Arrays.copyOf(startingStart, numSections);
            for (int i = 0; i < n; ++i) {
                starting[at[secLo[i]]++] = i;
            }
            overlapStart = new int[n + 1];
            long pairs = 0;
            for (int pass = 0; pass < 2; ++pass) {
                int[] fill = null;
                if (pass == 1) {
                    for (int i = 0; i < n; ++i) {
                        overlapStart[i + 1] += overlapStart[i];
                    }
                    overlap = new int[overlapStart[n]];
                    fill = Arrays.copyOf(overlapStart, n);
                }
                for (int i = 0; i < n; ++i) {
                    int lo = secLo[i];
                    for (int k = memberStart[lo]; k < memberStart[lo + 1]; ++k) {
                        int j = member[k];
                        if (j == i || secLo[j] == lo) {
                            continue; // started together: counted below
                        }
                        if (pass == 0) {
                            overlapStart[i + 1]++;
                            overlapStart[j + 1]++;
                            pairs += 2;
                            if (pairs > MAX_INDEX_ENTRIES) {
                                return false;
                            }
                        } else {
                            overlap[fill[i]++] = j;
                            overlap[fill[j]++] = i;
                        }
                    }
                    for (int s = lo; s < secHi[i]; ++s) {
                        for (int k = startingStart[s]; k < startingStart[s + 1]; ++k) {
                            int j = starting[k];
                            if (j <= i && s == lo) {
                                continue; // a pair starting together, once
                            }
                            if (pass == 0) {
                                overlapStart[i + 1]++;
                                overlapStart[j + 1]++;
                                pairs += 2;
                                if (pairs > MAX_INDEX_ENTRIES) {
                                    return false;
                                }
                            } else {
                                overlap[fill[i]++] = j;
                                overlap[fill[j]++] = i;
                            }
                        }
                    }
                }
            }
            for (int i = 0; i < n; ++i) {
                Arrays.sort(overlap, overlapStart[i], overlapStart[i + 1]);
            }
            return true;
        }

        private static long[] distinct(long[] values) {
            long[] v = values.clone();
            Arrays.sort(v);
            int d = 0;
            for (int i = 0; i < v.length; i++) {
                if (i == 0 || v[i] != v[d - 1]) {
                    v[d++] = v[i];
                }
            }
            return Arrays.copyOf(v, d);
        }

        /** The index of the first entry above {@code key} (std::upper_bound). */
        private static int upperBound(long[] sorted, long key) {
            int lo = 0;
            int hi = sorted.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (sorted[mid] <= key) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }
    }

    // A partition being solved (exact_packing.h's Context).
    record Context(int begin, int end, int secLo, int secHi, int frameBase, int split) {
    }

    // One node of the search (exact_packing.h's Frame).
    static final class Frame {
        int ctx;
        long minOffset;
        int minRank;
        int candBegin;
        int candEnd;
        int cursor;
        int placed = -1;
        boolean hatless;
        boolean cut;
        int offsetMark;
        int floorMark;

        Frame(int ctx, long minOffset, int minRank, int cand) {
            this.ctx = ctx;
            this.minOffset = minOffset;
            this.minRank = minRank;
            this.candBegin = cand;
            this.candEnd = cand;
            this.cursor = cand;
        }
    }

    // A partition split at zero cuts (exact_packing.h's Split).
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

    /** A growable int array: std::vector<int>'s push_back, resize and indexing. */
    static final class Ints {
        int[] a = new int[16];
        int size;

        void push(int v) {
            if (size == a.length) {
                a = Arrays.copyOf(a, 2 * size);
            }
            a[size++] = v;
        }
    }

    /** An undo log of (index, old value): std::vector<Change>. */
    static final class ChangeLog {
        int[] index = new int[16];
        long[] value = new long[16];
        int size;

        void push(int i, long v) {
            if (size == index.length) {
                index = Arrays.copyOf(index, 2 * size);
                value = Arrays.copyOf(value, 2 * size);
            }
            index[size] = i;
            value[size++] = v;
        }
    }

    /** A comparison of two buffer ids. */
    interface IdOrder {
        boolean less(int a, int b);
    }

    /**
     * Sorts ids in {@code a[from, to)} by a strict total order (a merge sort: any correct sort gives
     * std::sort's result, since no two ids compare equal).
     */
    static void sort(int[] a, int from, int to, IdOrder order, Ints tmp) {
        int len = to - from;
        if (len < 2) {
            return;
        }
        if (len <= 16) {
            for (int i = from + 1; i < to; i++) {
                int v = a[i];
                int j = i - 1;
                while (j >= from && order.less(v, a[j])) {
                    a[j + 1] = a[j];
                    j--;
                }
                a[j + 1] = v;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        sort(a, from, mid, order, tmp);
        sort(a, mid, to, order, tmp);
        if (tmp.a.length < len) {
            tmp.a = new int[Math.max(len, 2 * tmp.a.length)];
        }
        int i = from;
        int j = mid;
        int k = 0;
        while (i < mid && j < to) {
            tmp.a[k++] = order.less(a[j], a[i]) ? a[j++] : a[i++];
        }
        while (i < mid) {
            tmp.a[k++] = a[i++];
        }
        while (j < to) {
            tmp.a[k++] = a[j++];
        }
        System.arraycopy(tmp.a, 0, a, from, len);
    }

    /** The decision search at one capacity (exact_packing.h's Search). */
    static final class Search {
        private static final int NEXT_PIECE = 0;
        private static final int ENTER = 1;
        private static final int NEXT = 2;
        private static final int FAIL = 3;

        private final Instance in;
        long nodes;
        long[] solution;
        private long capacity;
        private int preorder;
        private long[] offset;
        private long[] minOffset;
        private long[] floor;
        private long[] total;
        private final long[] keyT;
        private int[] rank;
        private int[] cuts;
        private int[] mark;
        private final Ints touched = new Ints();
        private int stamp;
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

        Search(Instance in) {
            this.in = in;
            this.keyT = new long[in.n];
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
            mark = new int[in.numSections];
            stamp = 0;
            frames.clear();
            contexts.clear();
            splits.clear();
            cutPoints.size = 0;
            lists.size = 0;
            cands.size = 0;
            offsetLog.size = 0;
            floorLog.size = 0;
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
            String order = PREORDERS[preorder];
            sort(lists.a, begin, end, (a, b) -> {
                for (int c = 0; c < 3; ++c) {
                    long x = key(order.charAt(c), a);
                    long y = key(order.charAt(c), b);
                    if (x != y) {
                        return x > y;
                    }
                }
                return a < b;
            }, sortScratch);
            for (int k = begin; k < end; ++k) {
                rank[lists.a[k]] = k - begin;
            }
        }

        private long key(char c, int i) {
            if (c == 'W') {
                return in.width[i];
            }
            if (c == 'A') {
                return in.area[i];
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
            sort(cands.a, f.candBegin, cands.size, (a, b) -> {
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
                int i = cands.a[f.cursor++];
                long o = minOffset[i];
                place(f, i, o);
                if (!fits(contexts.get(f.ctx), o)) {
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
            ++stamp;
            touched.size = 0;
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
                for (int s = in.secLo[j]; s < in.secHi[j]; ++s) {
                    if (mark[s] != stamp) {
                        mark[s] = stamp;
                        touched.push(s);
                    }
                }
            }
            f.hatless = hatless;
            for (int s = in.secLo[i]; s < in.secHi[i]; ++s) {
                floorLog.push(s, floor[s]);
                floor[s] = top;
                total[s] -= in.size[i];
            }
            for (int t = 0; t < touched.size; ++t) {
                int s = touched.a[t];
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
        // above its floor (and above the offset just placed, since offsets only rise).
        private boolean fits(Context c, long o) {
            for (int s = c.secLo(); s < c.secHi(); ++s) {
                if (Math.max(o, floor[s]) + total[s] > capacity) {
                    return false;
                }
            }
            return true;
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

    /** The optimisation over capacities (exact_packing.h's Optimizer). */
    static final class Optimizer {
        private final Instance in;
        private final Search search;
        private final ArrayList<long[]> tried = new ArrayList<>(); // {capacity, preorder, limit}
        private long nodesLeft;
        private final long target;
        private final boolean timed;
        private final long deadline;
        long nodes;
        long bound;
        int status = PROVEN;

        Optimizer(Instance in, long nodeLimit, long timeLimitMillis, long target) {
            this.in = in;
            this.search = new Search(in);
            this.nodesLeft = nodeLimit;
            this.target = target;
            this.timed = timeLimitMillis > 0;
            this.deadline = System.nanoTime() + (timeLimitMillis > 0 ? timeLimitMillis * 1_000_000L : 0);
        }

        // Improves offset (a valid plan of height `height`) in place; returns the final height.
        long solve(long[] offset, long height) {
            bound = in.lowerBound;
            long limit = 2 * (long) Math.max(in.n, 1);
            long[] fixed = new long[NUM_RUNGS];
            int fixedCount = 0;
            while (bound < height && height > target) {
                if (!anyRungOpen(fixed, fixedCount, height)) {
                    fixedCount = ladder(height, fixed);
                }
                long[] rungs = new long[NUM_RUNGS + 2];
                int count = withMovingRungs(fixed, fixedCount, height, rungs);
                boolean moved = false;
                for (int k = 0; k < count && !moved; ++k) {
                    // The bound's rung decides tight instances, the target's the decision problem:
                    // the others take a quarter of the nodes.
                    long rungLimit = rungs[k] == bound || rungs[k] == target ? limit : Math.max(limit / 4, 1L);
                    for (int p = 0; p < NUM_PREORDERS && !moved; ++p) {
                        if (tried(rungs[k], p) >= rungLimit) {
                            continue; // the same search again would fail again
                        }
                        int r = search.run(rungs[k], p, Math.min(rungLimit, nodesLeft), timed, deadline);
                        nodes += search.nodes;
                        nodesLeft -= search.nodes;
                        if (r == FOUND) {
                            System.arraycopy(search.solution, 0, offset, 0, in.n);
                            height = heightOf(in.n, in.size, offset);
                            moved = true;
                        } else if (r == INFEASIBLE) {
                            bound = rungs[k] + 1;
                            moved = true;
                        } else if (r == TIMED_OUT) {
                            status = TIME_LIMIT;
                            return height;
                        } else if (nodesLeft <= 0) {
                            status = NODE_LIMIT;
                            return height;
                        } else {
                            tried.add(new long[] {rungs[k], p, rungLimit});
                        }
                    }
                }
                // Every rung ran out of nodes: MiniMalloc's restart, with twice the limit.
                if (!moved) {
                    limit = limit > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : limit * 2;
                }
            }
            if (bound < height) {
                status = TARGET_REACHED;
            }
            return height;
        }

        // The capacities to try below height, ascending and distinct: the ladder's rungs, or the
        // caller's target alone while it is above the bound.
        private int ladder(long height, long[] rungs) {
            if (target >= bound && target < height) {
                rungs[0] = target; // only the target decides when to stop: MiniMalloc's decision search
                return 1;
            }
            long gap = height - bound;
            int count = 0;
            for (int k = 0; k < NUM_RUNGS; ++k) {
                long cap = k == 0 ? bound : bound + (gap >> (NUM_RUNGS - k));
                if (cap < bound || cap >= height) {
                    continue;
                }
                if (count > 0 && rungs[count - 1] == cap) {
                    continue;
                }
                rungs[count++] = cap;
            }
            return count;
        }

        // The open rungs of the fixed ladder and two that move with the gap (its half and three
        // quarters: each success there closes a quarter of the gap or more), ascending, distinct.
        private int withMovingRungs(long[] fixed, int fixedCount, long height, long[] rungs) {
            int count = 0;
            for (int k = 0; k < fixedCount; ++k) {
                if (fixed[k] >= bound && fixed[k] < height) {
                    rungs[count++] = fixed[k];
                }
            }
            if (target < bound || target >= height) {
                long gap = height - bound;
                for (long cap : new long[] {bound + gap / 2, bound + gap / 2 + gap / 4}) {
                    if (cap < bound || cap >= height) {
                        continue;
                    }
                    int at = count;
                    boolean seen = false;
                    for (int j = 0; j < count; ++j) {
                        seen = seen || rungs[j] == cap;
                    }
                    if (seen) {
                        continue;
                    }
                    while (at > 0 && rungs[at - 1] > cap) {
                        rungs[at] = rungs[at - 1];
                        --at;
                    }
                    rungs[at] = cap;
                    ++count;
                }
            }
            return count;
        }

        // Whether a rung of the current ladder still lies in [bound, height).
        private boolean anyRungOpen(long[] rungs, int count, long height) {
            for (int k = 0; k < count; ++k) {
                if (rungs[k] >= bound && rungs[k] < height) {
                    return true;
                }
            }
            return false;
        }

        // The largest node limit a (capacity, preorder) search already ran out of.
        private long tried(long capacity, int preorder) {
            long most = 0;
            for (long[] t : tried) {
                if (t[0] == capacity && t[1] == preorder) {
                    most = Math.max(most, t[2]);
                }
            }
            return most;
        }
    }
}
