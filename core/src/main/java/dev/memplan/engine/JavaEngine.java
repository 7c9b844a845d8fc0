// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

/** The pure-Java engine: the reference the native engine is checked against, and its fallback. */
public final class JavaEngine implements PlanningEngine {
    /** The engine; it keeps no state, so one instance serves every caller. */
    public static final JavaEngine INSTANCE = new JavaEngine();

    private JavaEngine() {
    }

    @Override
    public String name() {
        return "java";
    }

    /** {@inheritDoc} The passes are {@link Compile}'s, mirrored by compile.h. */
    @Override
    public CompiledGraph compile(FlatGraph g, int[] valueRoot, int[] inPlaceMask, boolean includeGraphInputs) {
        return Compile.run(g, valueRoot, inPlaceMask, includeGraphInputs);
    }

    @Override
    public OffsetAllocation packOffsets(int numPositions, int[] def, int[] useEnd, long[] sizes, int effort) {
        IntervalChecks.check(numPositions, def, useEnd, sizes, effort);
        return OffsetsPlan.allocation(numPositions, def, useEnd, sizes, effort);
    }

    @Override
    public ExactPacking.Result packExact(long[] lower, long[] upper, long[] sizes, long[] seed, long nodeLimit,
                                         long timeLimitMillis, long target) {
        ExactPacking.check(lower, upper, sizes, seed, nodeLimit, timeLimitMillis, target);
        return ExactPacking.pack(lower, upper, sizes, seed, nodeLimit, timeLimitMillis, target);
    }
}
