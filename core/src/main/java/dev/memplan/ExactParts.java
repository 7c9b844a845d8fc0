// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import dev.memplan.Packing.ExactLimits;
import dev.memplan.Packing.ExactResult;
import dev.memplan.Packing.ExactStatus;
import dev.memplan.Packing.Result;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The exact mode over buffers that fall apart in time ({@link Packing#packExact}): parts share no
 * time alive, so each packs alone from offset 0, the arena is the largest part's and the proven
 * bound the largest part's bound. The optimum of the whole is the largest part's optimum, so only
 * that part needs a proof: the others need only fit in the arena found so far.
 */
final class ExactParts {
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
        long start = System.nanoTime();
        boolean timed = !limits.timeLimit().isZero();
        long deadline = start + (timed ? limits.timeLimit().toNanos() : 0);
        // Under a clock, pack's own plan of the whole comes first: each part's search starts from its
        // share of it, and a part the clock leaves no time for keeps that share, so nothing runs past
        // the deadline and the answer is never worse than pack's.
        Result whole = timed ? Packing.pack(lower, upper, sizes, Packing.defaultEffort(sizes.length), engine) : null;
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
            ExactLimits left = remaining(limits, nodes, start);
            // the first part is minimized (or fitted to the caller's capacity); after it, fitting in the
            // arena so far is enough
            long target = stops.isEmpty() ? limits.capacityBytes() : Math.max(limits.capacityBytes(), arena);
            ExactLimits partLimits = left == null ? null : new ExactLimits(left.nodes(), left.timeLimit(), target);
            ExactResult r = left == null ? unsearched(part, engine, limits, nodes >= limits.nodes())
                    : timed ? Packing.packExactFrom(part.seed(), part.lower(), part.upper(), part.sizes(), partLimits,
                            deadline, engine)
                    : Packing.packExactPart(part.lower(), part.upper(), part.sizes(), partLimits, engine);
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
            // part searched from its default effort's plan already)
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
     * The limits left for the next part, or null when none are: the nodes the parts before it did
     * not spend, and the time to the whole call's deadline.
     */
    private static ExactLimits remaining(ExactLimits limits, long spentNodes, long start) {
        long nodes = limits.nodes() - spentNodes;
        if (nodes < 1) {
            return null;
        }
        if (limits.timeLimit().isZero()) {
            return new ExactLimits(nodes, Duration.ZERO, limits.capacityBytes());
        }
        Duration time = limits.timeLimit().minusNanos(System.nanoTime() - start);
        return time.isNegative() || time.isZero() ? null : new ExactLimits(nodes, time, limits.capacityBytes());
    }

    /**
     * A part the limits left no search for: the default effort's plan (under a clock, its share of
     * pack's plan of the whole, made before the search: nothing may run past the deadline).
     */
    private static ExactResult unsearched(Part part, EngineMode engine, ExactLimits limits, boolean nodesSpent) {
        Result plan = !limits.timeLimit().isZero() ? part.seed()
                : Packing.pack(part.lower(), part.upper(), part.sizes(), Packing.defaultEffort(part.sizes().length),
                        engine);
        ExactStatus why = nodesSpent || limits.timeLimit().isZero() ? ExactStatus.NODE_LIMIT : ExactStatus.TIME_LIMIT;
        return new ExactResult(plan, plan.lowerBoundBytes(), plan.arenaBytes() == plan.lowerBoundBytes()
                ? ExactStatus.PROVEN_OPTIMAL : why, 0, 1);
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
