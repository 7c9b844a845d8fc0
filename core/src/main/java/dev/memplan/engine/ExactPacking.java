// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * The exact mode of interval packing (docs/design.md §5c): a complete, deterministic search for
 * the smallest arena that holds every buffer. exact_packing.h is the same program, line for line;
 * {@link ExactInstance} indexes the instance, {@link ExactSearch} decides one capacity.
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


    // The rungs of the capacity ladder: the bound, then the bound plus the gap over 2^k.
    static final int NUM_RUNGS = 8;
    /** The longest time limit, 2^40 ms (about 35 years): a deadline past it would overflow a long of nanoseconds. */
    public static final long MAX_TIME_LIMIT_MILLIS = 1L << 40;

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
        NonEmpty b = NonEmpty.of(lower, upper, size, seed);
        int m = b.kept.length;
        long[] offset = new long[size.length];
        long height = heightOf(m, b.size, b.offset);
        refuseOverlap(b); // the seed must be a plan, also where nothing is searched
        ExactInstance in = new ExactInstance();
        if (!in.build(m, b.lower, b.upper, b.size, height)) {
            scatter(b.kept, b.offset, offset);
            return new Result(height, in.lowerBound, height == in.lowerBound ? PROVEN : TOO_LARGE, 0, offset);
        }
        Optimizer opt = new Optimizer(in, Merged.of(m, b.lower, b.upper, b.size), nodeLimit, timeLimitMillis, target);
        height = opt.solve(b.offset, height); // improves the seed's offsets in place
        scatter(b.kept, b.offset, offset);
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
        if (timeLimitMillis < 0 || timeLimitMillis > MAX_TIME_LIMIT_MILLIS) {
            throw new IllegalArgumentException("the time limit must be from 0 ms (none) to " + MAX_TIME_LIMIT_MILLIS
                    + " ms, got " + timeLimitMillis);
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

    /**
     * The buffers with bytes, as the search sees them: empty buffers take no bytes and touch
     * nothing, so they sit at 0 and stay out of it (its dominance rule assumes every buffer has a
     * top above its offset). {@code kept[k]} is the caller's index of buffer {@code k}.
     */
    record NonEmpty(int[] kept, long[] lower, long[] upper, long[] size, long[] offset) {
        static NonEmpty of(long[] lower, long[] upper, long[] size, long[] seed) {
            int m = 0;
            for (long s : size) {
                m += s != 0 ? 1 : 0;
            }
            NonEmpty b = new NonEmpty(new int[m], new long[m], new long[m], new long[m], new long[m]);
            for (int i = 0, k = 0; i < size.length; ++i) {
                if (size[i] != 0) {
                    b.kept[k] = i;
                    b.lower[k] = lower[i];
                    b.upper[k] = upper[i];
                    b.size[k] = size[i];
                    b.offset[k++] = seed[i];
                }
            }
            return b;
        }
    }

    /**
     * Refuses a seed that puts two live buffers on one byte, naming the caller's buffer: the Java
     * engine's check, and the native engine's message when its own check refused the seed.
     *
     * @throws IllegalArgumentException naming the buffer
     */
    static void refuseOverlappingSeed(long[] lower, long[] upper, long[] size, long[] seed) {
        refuseOverlap(NonEmpty.of(lower, upper, size, seed));
    }

    private static void refuseOverlap(NonEmpty b) {
        int overlapping = seedOverlap(b.kept.length, b.lower, b.upper, b.size, b.offset);
        if (overlapping >= 0) {
            throw new IllegalArgumentException("the seed plan puts buffer " + b.kept[overlapping]
                    + " on bytes of a buffer alive with it; pass a valid plan as the seed");
        }
    }

    /**
     * The first buffer of a seed plan that shares a byte with one started before it while both are
     * alive (-1: none), by one sweep over time that keeps the live buffers ordered by offset. In a
     * valid plan the live buffers are disjoint, so a new one need only be checked against its two
     * neighbours: O(n log n), where the search's overlap index may not exist. Sizes are > 0.
     */
    static int seedOverlap(int n, long[] lower, long[] upper, long[] size, long[] offset) {
        Integer[] byStart = new Integer[n];
        for (int i = 0; i < n; ++i) {
            byStart[i] = i;
        }
        Integer[] byEnd = byStart.clone();
        Arrays.sort(byStart, (a, b) -> lower[a] != lower[b] ? Long.compare(lower[a], lower[b]) : Integer.compare(a, b));
        Arrays.sort(byEnd, (a, b) -> upper[a] != upper[b] ? Long.compare(upper[a], upper[b]) : Integer.compare(a, b));
        TreeMap<Long, Integer> live = new TreeMap<>(); // offset -> buffer
        int ended = 0;
        for (int i : byStart) {
            for (; ended < n && upper[byEnd[ended]] <= lower[i]; ++ended) {
                live.remove(offset[byEnd[ended]]);
            }
            Map.Entry<Long, Integer> next = live.ceilingEntry(offset[i]);
            if (next != null && offset[i] + size[i] > next.getKey()) {
                return i;
            }
            Map.Entry<Long, Integer> prev = live.lowerEntry(offset[i]);
            if (prev != null && prev.getKey() + size[prev.getValue()] > offset[i]) {
                return i;
            }
            live.put(offset[i], i);
        }
        return -1;
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

    /**
     * A restriction of the instance (exact_packing.h's Merged): buffers alive over the same span
     * stacked into one, and a buffer joined to one of its size that starts where it ends, round after
     * round until nothing merges. Every packing of the merged buffers is one of the originals, so a
     * packing of them at the live bound is optimal; one that fails proves nothing. On an instance cut
     * guillotine fashion, each round undoes the last cuts: a few dozen buffers are left.
     */
    static final class Merged {
        // Rounds of merging at most: each costs a sort of the groups left.
        static final int MAX_ROUNDS = 64;

        int count;
        long[] lower;
        long[] upper;
        long[] size;
        private final int[] parent; // the group a buffer joined (-1: it heads a group of the restriction)
        private final long[] rel; // its offset above that group's
        private final int[] joined; // the buffers in the order they joined a group
        private final int[] head; // the restriction's buffer k is the group headed by head[k]

        private Merged(int n, long[] lo, long[] up, long[] sz) {
            long[] gl = lo.clone();
            long[] gu = up.clone();
            long[] gs = sz.clone();
            parent = new int[n];
            Arrays.fill(parent, -1);
            rel = new long[n];
            joined = new int[n];
            int numJoined = 0;
            int[] live = new int[n];
            int[] byStart = new int[n];
            ExactSearchArrays.Ints scratch = new ExactSearchArrays.Ints();
            for (int round = 0; round < MAX_ROUNDS; ++round) {
                int before = numJoined;
                int c = heads(n, live);
                // Stacked: the groups alive over the same span, in index order from the bottom.
                ExactSearchArrays.sort(live, 0, c, (a, b) -> gl[a] != gl[b] ? gl[a] < gl[b]
                        : gu[a] != gu[b] ? gu[a] < gu[b] : a < b, scratch);
                for (int k = 0; k < c; ) {
                    int a = live[k];
                    int j = k + 1;
                    for (; j < c && gl[live[j]] == gl[a] && gu[live[j]] == gu[a]; ++j) {
                        int b = live[j];
                        parent[b] = a;
                        rel[b] = gs[a];
                        gs[a] += gs[b];
                        joined[numJoined++] = b;
                    }
                    k = j;
                }
                // Joined in time: each group takes the first group of its size starting where it ends.
                c = heads(n, live);
                System.arraycopy(live, 0, byStart, 0, c);
                ExactSearchArrays.sort(byStart, 0, c, (a, b) -> gl[a] != gl[b] ? gl[a] < gl[b]
                        : gs[a] != gs[b] ? gs[a] < gs[b] : a < b, scratch);
                for (int k = 0; k < c; ++k) {
                    int a = live[k];
                    if (parent[a] >= 0) {
                        continue;
                    }
                    int lo2 = 0;
                    int hi2 = c;
                    while (lo2 < hi2) { // the first group starting at gu[a] with gs[a] bytes or more
                        int mid = (lo2 + hi2) >>> 1;
                        int x = byStart[mid];
                        if (gl[x] < gu[a] || (gl[x] == gu[a] && gs[x] < gs[a])) {
                            lo2 = mid + 1;
                        } else {
                            hi2 = mid;
                        }
                    }
                    for (int q = lo2; q < c && gl[byStart[q]] == gu[a] && gs[byStart[q]] == gs[a]; ++q) {
                        int b = byStart[q];
                        if (parent[b] < 0) {
                            parent[b] = a;
                            rel[b] = 0;
                            gu[a] = gu[b];
                            joined[numJoined++] = b;
                            break;
                        }
                    }
                }
                if (numJoined == before) {
                    break;
                }
            }
            count = n - numJoined;
            head = new int[count];
            lower = new long[count];
            upper = new long[count];
            size = new long[count];
            for (int i = 0, k = 0; i < n; ++i) {
                if (parent[i] < 0) {
                    head[k] = i;
                    lower[k] = gl[i];
                    upper[k] = gu[i];
                    size[k++] = gs[i];
                }
            }
        }

        /**
         * The restriction of buffers lo, up, sz; null when no two merge, or when a merged buffer's
         * width or area (width times size) would pass a long: stacking adds sizes and joining adds
         * widths, so a restriction of buffers that each fit may not.
         */
        static Merged of(int n, long[] lo, long[] up, long[] sz) {
            Merged g = new Merged(n, lo, up, sz);
            return g.count < n && g.areasFit() ? g : null;
        }

        private boolean areasFit() {
            try {
                for (int k = 0; k < count; ++k) {
                    Math.multiplyExact(Math.subtractExact(upper[k], lower[k]), size[k]);
                }
                return true;
            } catch (ArithmeticException e) {
                return false;
            }
        }

        // The groups still heading themselves, ascending; their count.
        private int heads(int n, int[] into) {
            int c = 0;
            for (int i = 0; i < n; ++i) {
                if (parent[i] < 0) {
                    into[c++] = i;
                }
            }
            return c;
        }

        /** Each original buffer's offset from the restriction's offsets. */
        void expand(long[] groupOffset, long[] offset) {
            for (int k = 0; k < count; ++k) {
                offset[head[k]] = groupOffset[k];
            }
            // a buffer's group was a head when it joined and joined another group only later
            for (int q = parent.length - count - 1; q >= 0; --q) {
                int b = joined[q];
                offset[b] = offset[parent[b]] + rel[b];
            }
        }
    }

    /** The optimisation over capacities (exact_packing.h's Optimizer). */
    static final class Optimizer {
        private final ExactInstance in;
        private final Merged merged;
        private final ExactSearch mergedSearch; // null: no two buffers merge
        private final long[] mergedTried = new long[ExactSearch.NUM_PREORDERS]; // limits run out at mergedAt
        private long mergedAt = -1;
        private long mergedRefuted = -1; // the restriction fits in no capacity up to this one
        private final ExactSearch search;
        private final ArrayList<long[]> tried = new ArrayList<>(); // {capacity, preorder, limit}
        private long nodesLeft;
        private final long target;
        private final boolean timed;
        private final long deadline;
        long nodes;
        long bound;
        int status = PROVEN;

        Optimizer(ExactInstance in, Merged merged, long nodeLimit, long timeLimitMillis, long target) {
            this.in = in;
            this.merged = merged;
            ExactInstance mi = new ExactInstance();
            boolean indexed = merged != null && mi.build(merged.count, merged.lower, merged.upper, merged.size,
                    Long.MAX_VALUE);
            this.mergedSearch = indexed ? new ExactSearch(mi) : null;
            this.search = new ExactSearch(in);
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
                if (mergedSearch != null && bound > mergedRefuted) {
                    int r = packMerged(offset, Math.max(limit / 4, 1L));
                    if (r == ExactSearch.FOUND) {
                        height = heightOf(in.n, in.size, offset);
                        moved = true;
                    } else if (r == ExactSearch.TIMED_OUT) {
                        status = TIME_LIMIT;
                        return height;
                    } else if (r == ExactSearch.ABORTED && nodesLeft <= 0) {
                        status = NODE_LIMIT;
                        return height;
                    }
                }
                for (int k = 0; k < count && !moved; ++k) {
                    // The bound's rung decides tight instances, the target's the decision problem:
                    // the others take a quarter of the nodes.
                    long rungLimit = rungs[k] == bound || rungs[k] == target ? limit : Math.max(limit / 4, 1L);
                    for (int p = 0; p < ExactSearch.NUM_PREORDERS && !moved; ++p) {
                        if (tried(rungs[k], p) >= rungLimit) {
                            continue; // the same search again would fail again
                        }
                        // a run under CLOCK_EVERY nodes never looks at the clock itself: look before it
                        if (timed && System.nanoTime() - deadline >= 0) {
                            status = TIME_LIMIT;
                            return height;
                        }
                        int r = search.run(rungs[k], p, Math.min(rungLimit, nodesLeft), timed, deadline);
                        nodes += search.nodes;
                        nodesLeft -= search.nodes;
                        if (r == ExactSearch.FOUND) {
                            System.arraycopy(search.solution, 0, offset, 0, in.n);
                            height = heightOf(in.n, in.size, offset);
                            moved = true;
                        } else if (r == ExactSearch.INFEASIBLE) {
                            bound = rungs[k] + 1;
                            moved = true;
                        } else if (r == ExactSearch.TIMED_OUT) {
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

        // The merged restriction at the bound, each preorder with a quarter of the sweep's node limit
        // (as the rungs above the bound) unless it ran out of it there before: FOUND writes the
        // packing to offset; INFEASIBLE (which refutes the restriction, not the instance) and ABORTED
        // leave it.
        private int packMerged(long[] offset, long limit) {
            if (mergedAt != bound) {
                mergedAt = bound;
                Arrays.fill(mergedTried, 0);
            }
            int r = ExactSearch.ABORTED;
            for (int p = 0; p < ExactSearch.NUM_PREORDERS && nodesLeft > 0; ++p) {
                if (mergedTried[p] >= limit) {
                    continue;
                }
                if (timed && System.nanoTime() - deadline >= 0) {
                    return ExactSearch.TIMED_OUT;
                }
                r = mergedSearch.run(bound, p, Math.min(limit, nodesLeft), timed, deadline);
                nodes += mergedSearch.nodes;
                nodesLeft -= mergedSearch.nodes;
                if (r == ExactSearch.FOUND) {
                    merged.expand(mergedSearch.solution, offset);
                    return r;
                }
                if (r == ExactSearch.INFEASIBLE) {
                    mergedRefuted = bound;
                    return r;
                }
                if (r == ExactSearch.TIMED_OUT) {
                    return r;
                }
                mergedTried[p] = limit;
            }
            return r;
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
