// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import dev.memplan.engine.ExactPacking;
import dev.memplan.engine.OffsetAllocation;
import dev.memplan.engine.PlanningEngine;
import java.nio.LongBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Interval packing without a graph: buffers with a lifetime and a size, placed at byte offsets in
 * one arena so that two buffers alive at the same time never share a byte. The offsets planner of
 * {@link PlanOptions.Strategy#OFFSETS} does the placing, on the engine of an {@link EngineMode}.
 *
 * <p>Lifetimes are half-open {@code [lower, upper)} in any integer time unit (MiniMalloc's
 * convention): two buffers overlap exactly when those ranges intersect. Times may be large and
 * sparse; they are compressed to dense positions first (the distinct values of {@code lower} and
 * {@code upper - 1}, in order), which keeps every overlap and adds none.
 *
 * <pre>{@code
 * Packing.Result r = Packing.pack(lower, upper, sizes, Packing.defaultEffort(sizes.length), EngineMode.AUTO);
 * long arena = r.arenaBytes(); // offsets: r.offset(i)
 * }</pre>
 */
public final class Packing {
    /**
     * The effort {@code memplan pack} uses unless told otherwise: higher than
     * {@link PlanOptions#DEFAULT_EFFORT}, since a packing problem is planned once, offline.
     */
    public static final int DEFAULT_EFFORT = 8;

    /**
     * The largest effort accepted, here and in {@link PlanOptions#MAX_EFFORT}: keeps every
     * iteration count inside an int.
     */
    public static final int MAX_EFFORT = 1_000;

    /**
     * The search work {@link #defaultEffort} allows, in buffer decodes (one decode places every
     * buffer once): a search at effort {@code e >= 2} decodes all {@code n} buffers up to
     * {@code 3 + 64 * (e - 1)} times (the three rank orders, then the rank swaps), so its work grows
     * with {@code n} times that count. About two million buffer decodes take a few seconds.
     */
    public static final long DEFAULT_WORK_BUDGET = 1L << 21;

    /** Rank orders the offsets planner decodes, and rank swaps per effort unit above 1 (OffsetPlanner's). */
    private static final long RANK_DECODES = 3;
    private static final long SWAPS_PER_EFFORT = 64;

    private Packing() {
    }

    /**
     * The effort {@code memplan pack} uses for {@code buffers} buffers unless told otherwise: the
     * highest effort up to {@link #DEFAULT_EFFORT} whose search stays within
     * {@link #DEFAULT_WORK_BUDGET} buffer decodes, and at least 1 (the sweep and the fit, no
     * repeated decodes: {@code O(n log n)}). Small problems (the hard-packing samples, a graph's
     * few thousand tensors) search at effort 8; from about 5,000 buffers the effort steps down, to
     * 1 from about 31,000, so a default pack's time grows about in step with the buffers. Deterministic: it
     * depends on the count alone, so both engines plan with the same effort.
     *
     * @param buffers the number of buffers, {@code >= 0}
     * @return an effort in {@code [1, DEFAULT_EFFORT]}
     */
    public static int defaultEffort(int buffers) {
        for (int effort = DEFAULT_EFFORT; effort > 1; effort--) {
            long decodes = RANK_DECODES + SWAPS_PER_EFFORT * (effort - 1);
            if (decodes * Math.max(buffers, 1) <= DEFAULT_WORK_BUDGET) {
                return effort;
            }
        }
        return 1;
    }

    /**
     * A packing: every buffer's offset, by input index, in an arena of {@link #arenaBytes()}.
     *
     * @param arenaBytes      the arena size: the highest {@code offset + size}
     * @param lowerBoundBytes the most bytes alive at one time: no packing needs less
     * @param naiveBytes      the sum of the sizes, {@code Long.MAX_VALUE} when it passes that
     * @param numPositions    distinct times after compression
     * @param offsets         each buffer's byte offset, by input index (a copy on every access)
     */
    public record Result(long arenaBytes, long lowerBoundBytes, long naiveBytes, int numPositions, long[] offsets) {
        /**
         * Keeps a copy of {@code offsets}: the result is immutable.
         *
         * @param arenaBytes      the arena size: the highest {@code offset + size}
         * @param lowerBoundBytes the most bytes alive at one time: no packing needs less
         * @param naiveBytes      the sum of the sizes, {@code Long.MAX_VALUE} when it passes that
         * @param numPositions    distinct times after compression
         * @param offsets         each buffer's byte offset, by input index
         */
        public Result {
            offsets = offsets.clone();
        }

        /**
         * Each buffer's byte offset, by input index.
         *
         * @return a new array on every call
         */
        @Override
        public long[] offsets() {
            return offsets.clone();
        }

        /**
         * The byte offset of one buffer.
         *
         * @param i the buffer's input index
         * @return its offset in the arena
         */
        public long offset(int i) {
            return offsets[i];
        }

        /**
         * The number of buffers.
         *
         * @return how many buffers were packed
         */
        public int size() {
            return offsets.length;
        }
    }

    /**
     * Packs buffer {@code i}, alive over {@code [lower[i], upper[i])} with {@code sizes[i]} bytes.
     * Deterministic: the same input and effort give the same offsets on both engines.
     *
     * @param lower  each buffer's first time
     * @param upper  each buffer's end time, exclusive: {@code upper[i] > lower[i]}
     * @param sizes  each buffer's bytes, {@code >= 0}
     * @param effort search effort in {@code [0, MAX_EFFORT]}, counted in iterations
     * @param engine the engine that packs
     * @return every buffer's offset, the arena size and the lower bound
     * @throws IllegalArgumentException naming the buffer (its input index) when the arrays differ in
     *                                  length, {@code upper <= lower} or a size is negative; or when
     *                                  the effort is out of range
     * @throws InvalidSizeException     naming the buffer and the time when the bytes alive at one
     *                                  time pass {@code Long.MAX_VALUE} (no arena of 64-bit offsets
     *                                  holds them), or when buffers that overlap in one chain of
     *                                  lifetimes have sizes whose sum passes it (see
     *                                  {@link TimeGroups})
     * @throws EngineUnavailableException when {@code engine} is native and it cannot load
     */
    public static Result pack(long[] lower, long[] upper, long[] sizes, int effort, EngineMode engine) {
        check(lower, upper, sizes, effort);
        if (sumFits(sizes)) {
            return packFitting(lower, upper, sizes, effort, engine);
        }
        // The engines place offsets below the sum of the sizes, so they need that sum in a long.
        // Buffers never alive together with another group's may share its bytes: each group is
        // packed alone from offset 0, and the arena is the largest group's.
        TimeGroups groups = TimeGroups.of(lower, upper, sizes);
        long[] offsets = new long[sizes.length];
        long arena = 0;
        long bound = 0;
        for (int[] members : groups.members()) {
            Result part = packFitting(pick(lower, members), pick(upper, members), pick(sizes, members), effort, engine);
            for (int k = 0; k < members.length; k++) {
                offsets[members[k]] = part.offset(k);
            }
            arena = Math.max(arena, part.arenaBytes());
            bound = Math.max(bound, part.lowerBoundBytes());
        }
        return new Result(arena, bound, Long.MAX_VALUE, distinctTimes(lower, upper).length, offsets);
    }

    private static boolean sumFits(long[] sizes) {
        long total = 0;
        for (long size : sizes) {
            total += size; // both >= 0: a negative sum is an overflow
            if (total < 0) {
                return false;
            }
        }
        return true;
    }

    static long[] pick(long[] values, int[] members) {
        long[] picked = new long[members.length];
        for (int k = 0; k < members.length; k++) {
            picked[k] = values[members[k]];
        }
        return picked;
    }

    /** {@link #pack} of checked buffers whose sizes sum to at most {@code Long.MAX_VALUE}. */
    private static Result packFitting(long[] lower, long[] upper, long[] sizes, int effort, EngineMode engine) {
        int n = sizes.length;
        long[] times = distinctTimes(lower, upper);
        int[] def = new int[n];
        int[] useEnd = new int[n];
        for (int i = 0; i < n; i++) {
            def[i] = Arrays.binarySearch(times, lower[i]);
            useEnd[i] = Arrays.binarySearch(times, upper[i] - 1);
        }
        int numPositions = Math.max(times.length, 1);
        PlanningEngine planner = EngineSelector.engineFor(engine);
        OffsetAllocation a = planner.packOffsets(numPositions, def, useEnd, sizes.clone(), effort);
        long[] offsets = new long[n];
        LongBuffer fromEngine = a.ownerOffsets().duplicate();
        fromEngine.get(offsets);
        return new Result(a.peakBytes(), a.lowerBoundBytes(), a.naiveBytes(), numPositions, offsets);
    }

    /**
     * The node limit {@code memplan pack --exact} uses unless told otherwise: about a minute of
     * search at most on the hard public instances of a few hundred buffers.
     */
    public static final long DEFAULT_EXACT_NODES = 1_000_000;

    /** Why an exact packing stopped. */
    public enum ExactStatus {
        /** The arena is optimal: it equals the lower bound, or every smaller capacity was refuted. */
        PROVEN_OPTIMAL,
        /** The node limit ran out: the best plan found, the gap open. Deterministic. */
        NODE_LIMIT,
        /** The time limit ran out: the best plan found, the gap open. Depends on the machine. */
        TIME_LIMIT,
        /** Too many overlapping buffers to search (tens of millions of pairs): the heuristic plan. */
        TOO_LARGE,
        /** The arena reached the requested capacity: the gap open unless it is at the bound. */
        CAPACITY_REACHED
    }

    /**
     * How long an exact packing may search.
     *
     * @param nodes         search nodes allowed, {@code >= 1}: the answer is the same on every
     *                      machine and engine
     * @param timeLimit     wall-clock limit, {@link Duration#ZERO} for none: when it stops the
     *                      search, the answer depends on the machine's speed and load
     * @param capacityBytes stop as soon as the arena is at most this many bytes (MiniMalloc's
     *                      decision problem); -1 to search for the optimum
     */
    public record ExactLimits(long nodes, Duration timeLimit, long capacityBytes) {
        /**
         * Checks the limits.
         *
         * @param nodes         search nodes allowed, {@code >= 1}
         * @param timeLimit     wall-clock limit, {@link Duration#ZERO} for none
         * @param capacityBytes the arena to stop at, or -1 to search for the optimum
         */
        public ExactLimits {
            if (nodes < 1) {
                throw new IllegalArgumentException("the node limit must be at least 1, got " + nodes);
            }
            if (timeLimit == null || timeLimit.isNegative()) {
                throw new IllegalArgumentException("the time limit must be zero (none) or positive, got " + timeLimit);
            }
            if (capacityBytes < -1) {
                throw new IllegalArgumentException("the capacity must be >= 0 bytes, or -1 for none; got "
                        + capacityBytes);
            }
        }

        /**
         * The time limit in whole milliseconds for the engines, 0 for none: rounded up, so a limit
         * under a millisecond stays a limit instead of becoming none; a limit past the engines'
         * longest (2^40 ms, about 35 years) is that longest.
         */
        long timeLimitMillis() {
            if (timeLimit.isZero()) {
                return 0;
            }
            if (timeLimit.compareTo(Duration.ofMillis(ExactPacking.MAX_TIME_LIMIT_MILLIS)) >= 0) {
                return ExactPacking.MAX_TIME_LIMIT_MILLIS;
            }
            long millis = timeLimit.toMillis();
            return timeLimit.equals(Duration.ofMillis(millis)) ? millis : millis + 1;
        }

        /**
         * The default: {@link #DEFAULT_EXACT_NODES} nodes, no clock, no capacity.
         *
         * @return deterministic limits
         */
        public static ExactLimits defaults() {
            return new ExactLimits(DEFAULT_EXACT_NODES, Duration.ZERO, -1);
        }
    }

    /**
     * An exact packing's answer.
     *
     * @param plan             the best plan found ({@code plan.lowerBoundBytes()} is the live bound)
     * @param provenBoundBytes no plan needs fewer bytes: the live bound, raised by every capacity the
     *                         search refuted; equal to {@code plan.arenaBytes()} when proven optimal
     * @param status           why the search stopped
     * @param nodes            search nodes spent
     * @param parts            how many parts the buffers fell into: groups that share no time, each
     *                         searched alone (1 when nothing falls apart)
     */
    public record ExactResult(Result plan, long provenBoundBytes, ExactStatus status, long nodes, int parts) {
        /**
         * Whether the arena is proven optimal.
         *
         * @return true when no plan can be smaller
         */
        public boolean provenOptimal() {
            return plan.arenaBytes() == provenBoundBytes;
        }

        /**
         * Bytes between the arena and the proven bound: 0 when proven optimal.
         *
         * @return the open gap
         */
        public long gapBytes() {
            return plan.arenaBytes() - provenBoundBytes;
        }
    }

    /**
     * The exact mode (docs/design.md §5c): packs as {@link #pack} at effort 1, then searches for
     * the smallest arena until it is proven optimal or a limit stops it, and returns the best plan
     * found; when a limit leaves a gap, the plan of {@link #pack} at {@link #defaultEffort} if it
     * is smaller. Deterministic under a node limit: the same answer on both engines and
     * every machine.
     *
     * <p>Buffers that fall apart in time (groups with no time alive together) are searched one
     * part at a time, from offset 0 each: the arena is the largest part's, and so is the proven
     * bound. The part with the highest live bound is minimized first; every other part need only
     * fit in the arena found so far (MiniMalloc's decision question, far cheaper than a proof), and
     * is minimized only when it cannot. The limits hold for the whole call: each part gets the nodes
     * and time the parts before it left.
     *
     * @param lower  each buffer's first time
     * @param upper  each buffer's end time, exclusive: {@code upper[i] > lower[i]}
     * @param sizes  each buffer's bytes, {@code >= 0}
     * @param limits how long to search
     * @param engine the engine that packs
     * @return the best plan, the proven bound, why the search stopped and how many parts there were
     * @throws IllegalArgumentException as {@link #pack}
     * @throws EngineUnavailableException when {@code engine} is native and it cannot load
     */
    public static ExactResult packExact(long[] lower, long[] upper, long[] sizes, ExactLimits limits,
                                        EngineMode engine) {
        check(lower, upper, sizes, 1);
        List<int[]> parts = sumFits(sizes) ? TimeGroups.of(lower, upper, sizes).members() : List.of();
        if (parts.size() <= 1) {
            return packExactPart(lower, upper, sizes, limits, engine);
        }
        return ExactParts.solve(parts, lower, upper, sizes, limits, engine);
    }

    /** {@link #packExact} of buffers searched as one part. */
    static ExactResult packExactPart(long[] lower, long[] upper, long[] sizes, ExactLimits limits,
                                     EngineMode engine) {
        if (!limits.timeLimit().isZero()) {
            long deadline = System.nanoTime() + limits.timeLimit().toNanos();
            // under a clock the seed comes first, so that no fallback runs after the deadline
            Result seed = seedWithin(lower, upper, sizes, deadline, engine);
            return packExactFrom(seed, lower, upper, sizes, limits, deadline, engine);
        }
        // The seed is only the search's first plan: the search's nodes and answer do not depend on
        // how good it is, only the fallback does. So it is the cheap effort-1 plan (the sweep and the
        // fit), and the default effort's plan is made only when the search ends with a gap, where it
        // may beat the best found: on MiniMalloc's instances that saves 0.1 to 0.4 s per proof.
        Result seed = pack(lower, upper, sizes, 1, engine);
        ExactResult r = search(seed, lower, upper, sizes, limits, engine);
        if (r.provenOptimal() || r.status() == ExactStatus.CAPACITY_REACHED) {
            return r;
        }
        Result heuristic = pack(lower, upper, sizes, defaultEffort(sizes.length), engine);
        if (heuristic.arenaBytes() >= r.plan().arenaBytes()) {
            return r;
        }
        // it may reach what the search proved
        ExactStatus status = heuristic.arenaBytes() == r.provenBoundBytes() ? ExactStatus.PROVEN_OPTIMAL : r.status();
        return new ExactResult(heuristic, r.provenBoundBytes(), status, r.nodes(), 1);
    }

    /**
     * The seed of a search under a clock: the default effort's plan when it surely fits in a quarter
     * of the time left, else the effort-1 plan. Its cost is judged from the effort-1 plan's own time:
     * measured, each further iteration cost 2x to 4x that plan (0.11 s against 1.7 s at effort 8 on
     * MiniMalloc's instances placed one after another, 0.1 s against 1.45 s on a 2,000-buffer
     * guillotine instance), so 4x is assumed. On 3,112 buffers under 1 s it alone spent the limit.
     */
    static Result seedWithin(long[] lower, long[] upper, long[] sizes, long deadline, EngineMode engine) {
        long start = System.nanoTime();
        Result cheap = pack(lower, upper, sizes, 1, engine);
        long cheapNanos = System.nanoTime() - start;
        int effort = defaultEffort(sizes.length);
        long left = deadline - System.nanoTime();
        if (effort <= 1 || cheapNanos > left / 4 / (4L * effort)) {
            return cheap;
        }
        Result better = pack(lower, upper, sizes, effort, engine);
        return better.arenaBytes() <= cheap.arenaBytes() ? better : cheap;
    }

    /**
     * The search from {@code seed} (a plan of the buffers) until {@code deadline} (a
     * {@link System#nanoTime} instant), with no fallback after it.
     */
    static ExactResult packExactFrom(Result seed, long[] lower, long[] upper, long[] sizes, ExactLimits limits,
                                     long deadline, EngineMode engine) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            ExactStatus status = seed.arenaBytes() == seed.lowerBoundBytes() ? ExactStatus.PROVEN_OPTIMAL
                    : limits.capacityBytes() >= 0 && seed.arenaBytes() <= limits.capacityBytes()
                    ? ExactStatus.CAPACITY_REACHED : ExactStatus.TIME_LIMIT;
            return new ExactResult(seed, seed.lowerBoundBytes(), status, 0, 1);
        }
        return search(seed, lower, upper, sizes,
                new ExactLimits(limits.nodes(), Duration.ofNanos(left), limits.capacityBytes()), engine);
    }

    /** The engine's exact search from the valid plan {@code seed}, as it answers. */
    private static ExactResult search(Result seed, long[] lower, long[] upper, long[] sizes, ExactLimits limits,
                                      EngineMode engine) {
        PlanningEngine planner = EngineSelector.engineFor(engine);
        ExactPacking.Result r = planner.packExact(lower.clone(), upper.clone(), sizes.clone(), seed.offsets(),
                limits.nodes(), limits.timeLimitMillis(), limits.capacityBytes());
        Result plan = new Result(r.heightBytes(), seed.lowerBoundBytes(), seed.naiveBytes(), seed.numPositions(),
                r.offsets());
        return new ExactResult(plan, r.lowerBoundBytes(), ExactStatus.values()[r.status()], r.nodes(), 1);
    }

    private static void check(long[] lower, long[] upper, long[] sizes, int effort) {
        if (lower.length != sizes.length || upper.length != sizes.length) {
            throw new IllegalArgumentException("lower, upper and sizes need one entry per buffer; got "
                    + lower.length + ", " + upper.length + " and " + sizes.length);
        }
        if (effort < 0 || effort > MAX_EFFORT) {
            throw new IllegalArgumentException("effort must be in [0, " + MAX_EFFORT + "], got " + effort);
        }
        for (int i = 0; i < sizes.length; i++) {
            if (upper[i] <= lower[i]) {
                throw new IllegalArgumentException("buffer " + i + " lives [" + lower[i] + ", " + upper[i]
                        + "): upper must be greater than lower");
            }
            if (sizes[i] < 0) {
                throw new IllegalArgumentException("buffer " + i + " has a negative size " + sizes[i]);
            }
        }
    }

    /** The distinct values of every {@code lower} and {@code upper - 1}, ascending. */
    private static long[] distinctTimes(long[] lower, long[] upper) {
        long[] t = new long[2 * lower.length];
        for (int i = 0; i < lower.length; i++) {
            t[2 * i] = lower[i];
            t[2 * i + 1] = upper[i] - 1;
        }
        Arrays.sort(t);
        int distinct = 0;
        for (int i = 0; i < t.length; i++) {
            if (i == 0 || t[i] != t[distinct - 1]) {
                t[distinct++] = t[i];
            }
        }
        return Arrays.copyOf(t, distinct);
    }

    /**
     * The exact mode over buffers that fall apart in time ({@link Packing#packExact}): parts share no
     * time alive, so each packs alone from offset 0, the arena is the largest part's and the proven
     * bound the largest part's bound. The optimum of the whole is the largest part's optimum, so only
     * that part needs a proof: the others need only fit in the arena found so far.
     */
    private static final class ExactParts {
        private ExactParts() {
        }

        /** One part: its buffers (input indices), its arrays and the plan its search starts from. */
        private record Part(int[] members, long[] lower, long[] upper, long[] sizes, Result seed) {
            long liveBound() {
                return seed.lowerBoundBytes();
            }
        }

        /**
         * Searches each part, the highest live bound first, then every other part at the capacity of
         * the arena found so far (raised where a part cannot fit it).
         */
        static ExactResult solve(List<int[]> groups, long[] lower, long[] upper, long[] sizes, ExactLimits limits,
                                 EngineMode engine) {
            boolean timed = !limits.timeLimit().isZero();
            long deadline = System.nanoTime() + (timed ? limits.timeLimit().toNanos() : 0);
            // Under a clock, a plan of the whole comes first (pack's own where the clock leaves time for
            // it): each part's search starts from its share of it, and a part the clock leaves no time for
            // keeps that share, so nothing runs past the deadline.
            Result whole = timed ? Packing.seedWithin(lower, upper, sizes, deadline, engine) : null;
            List<Part> parts = new ArrayList<>();
            long naive = 0;
            int positions = 0;
            for (int[] members : groups) {
                long[] l = Packing.pick(lower, members);
                long[] u = Packing.pick(upper, members);
                long[] s = Packing.pick(sizes, members);
                Result first = Packing.pack(l, u, s, 1, engine); // its live bound orders the parts
                parts.add(new Part(members, l, u, s, whole == null ? first : share(whole, members, s, first)));
                naive += first.naiveBytes();
                positions += first.numPositions();
            }
            // the highest bound first (its optimum is the likeliest arena), then in time: deterministic
            List<Part> order = new ArrayList<>(parts);
            order.sort(Comparator.comparingLong(Part::liveBound).reversed());

            long[] offsets = new long[sizes.length];
            long arena = 0;
            long bound = 0;
            long liveBound = 0;
            long nodes = 0;
            List<ExactStatus> stops = new ArrayList<>();
            for (Part part : order) {
                // each part gets the nodes the parts before it left, and the whole call's deadline; the
                // first part is minimized (or fitted to the caller's capacity), after it fitting in the
                // arena so far is enough
                long nodesLeft = limits.nodes() - nodes;
                long target = stops.isEmpty() ? limits.capacityBytes() : Math.max(limits.capacityBytes(), arena);
                ExactResult r;
                if (nodesLeft < 1) {
                    r = unsearched(part, engine, timed);
                } else {
                    ExactLimits partLimits = new ExactLimits(nodesLeft, limits.timeLimit(), target);
                    r = timed ? Packing.packExactFrom(part.seed(), part.lower(), part.upper(), part.sizes(), partLimits,
                            deadline, engine)
                            : Packing.packExactPart(part.lower(), part.upper(), part.sizes(), partLimits, engine);
                }
                for (int k = 0; k < part.members().length; k++) {
                    offsets[part.members()[k]] = r.plan().offset(k);
                }
                arena = Math.max(arena, r.plan().arenaBytes());
                bound = Math.max(bound, r.provenBoundBytes());
                liveBound = Math.max(liveBound, part.liveBound());
                nodes += r.nodes();
                stops.add(r.status());
            }
            Result plan = new Result(arena, liveBound, naive, Math.max(positions, 1), offsets);
            ExactStatus status = status(arena, bound, limits.capacityBytes(), stops);
            if (status != ExactStatus.PROVEN_OPTIMAL && status != ExactStatus.CAPACITY_REACHED
                    && limits.timeLimit().isZero()) {
                // as for one part: never worse than the heuristic plan of the whole (under a clock, each
                // part searched from its share of the seed already)
                Result heuristic = Packing.pack(lower, upper, sizes, Packing.defaultEffort(sizes.length), engine);
                if (heuristic.arenaBytes() < plan.arenaBytes()) {
                    plan = heuristic;
                    status = plan.arenaBytes() == bound ? ExactStatus.PROVEN_OPTIMAL : status;
                }
            }
            return new ExactResult(plan, bound, status, nodes, parts.size());
        }

        /** The whole's plan of one part's buffers, a plan of the part, with the part's own live bound. */
        private static Result share(Result whole, int[] members, long[] sizes, Result own) {
            long[] offsets = new long[members.length];
            long arena = 0;
            for (int k = 0; k < members.length; k++) {
                offsets[k] = whole.offset(members[k]);
                arena = Math.max(arena, offsets[k] + sizes[k]);
            }
            return new Result(arena, own.lowerBoundBytes(), own.naiveBytes(), own.numPositions(), offsets);
        }

        /**
         * A part the node limit left no search for: the default effort's plan (under a clock, its share
         * of the seed of the whole, made before the search: nothing may run past the deadline). A
         * part the clock left no time for is {@link Packing#packExactFrom}'s.
         */
        private static ExactResult unsearched(Part part, EngineMode engine, boolean timed) {
            Result plan = timed ? part.seed()
                    : Packing.pack(part.lower(), part.upper(), part.sizes(), Packing.defaultEffort(part.sizes().length),
                            engine);
            return new ExactResult(plan, plan.lowerBoundBytes(), plan.arenaBytes() == plan.lowerBoundBytes()
                    ? ExactStatus.PROVEN_OPTIMAL : ExactStatus.NODE_LIMIT, 0, 1);
        }

        /**
         * The whole's status: proven when the arena meets the bound; at the caller's capacity when it
         * fits; else why the parts left gaps, the clock first (it depends on the machine).
         */
        private static ExactStatus status(long arena, long bound, long capacity, List<ExactStatus> stops) {
            if (arena == bound) {
                return ExactStatus.PROVEN_OPTIMAL;
            }
            if (capacity >= 0 && arena <= capacity) {
                return ExactStatus.CAPACITY_REACHED;
            }
            for (ExactStatus why : List.of(ExactStatus.TIME_LIMIT, ExactStatus.NODE_LIMIT, ExactStatus.TOO_LARGE)) {
                if (stops.contains(why)) {
                    return why;
                }
            }
            // only parts that reached a capacity left gaps, below a part that did not
            return ExactStatus.NODE_LIMIT;
        }
    }
}
