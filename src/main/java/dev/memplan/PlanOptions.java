// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

/**
 * How to plan.
 *
 * @param includeGraphInputs whether graph inputs own slots (off by default: the caller usually owns
 *                           its input buffers)
 * @param alignment          every owner's size, and every offset, is a multiple of this (>= 1)
 * @param engine             which engine plans
 * @param strategy           offsets in one arena, or the seed's slots
 * @param effort             how hard the offsets planner searches (>= 0; see {@link #DEFAULT_EFFORT}):
 *                           counted in iterations, never in time, so plans stay deterministic and
 *                           identical on both engines; ignored by slots plans
 */
public record PlanOptions(boolean includeGraphInputs, long alignment, EngineMode engine, Strategy strategy,
                          int effort) {

    /** The effort of {@link #defaults()}: a few greedy orders, then a short improvement phase. */
    public static final int DEFAULT_EFFORT = 1;

    /** The largest effort accepted: keeps every iteration count inside an int. */
    public static final int MAX_EFFORT = 1_000;

    /**
     * Checks the options: alignment >= 1, effort in {@code 0..MAX_EFFORT}, no null field.
     *
     * @param includeGraphInputs whether graph inputs get their own buffers
     * @param alignment the multiple sizes and offsets are rounded up to, >= 1
     * @param engine the engine to plan with
     * @param strategy offsets (one arena) or slots
     * @param effort search effort in iterations, {@code 0..MAX_EFFORT}
     */
    public PlanOptions {
        if (alignment < 1) {
            throw new IllegalArgumentException("alignment must be >= 1, got " + alignment);
        }
        if (engine == null) {
            throw new IllegalArgumentException("engine must not be null");
        }
        if (strategy == null) {
            throw new IllegalArgumentException("strategy must not be null");
        }
        if (effort < 0 || effort > MAX_EFFORT) {
            throw new IllegalArgumentException("effort must be in [0, " + MAX_EFFORT + "], got " + effort);
        }
    }

    /** {@return the default options: graph inputs excluded, alignment 1, the engine of {@code memplan.engine}, offsets, default effort} */
    public static PlanOptions defaults() {
        return new PlanOptions(false, 1, EngineMode.fromSystemProperty(), Strategy.OFFSETS, DEFAULT_EFFORT);
    }

    /**
     * A copy with {@code includeGraphInputs} set.
     *
     * @param include whether graph inputs get their own buffers
     * @return the new options
     */
    public PlanOptions withIncludeGraphInputs(boolean include) {
        return new PlanOptions(include, alignment, engine, strategy, effort);
    }

    /**
     * A copy with {@code alignment} set.
     *
     * @param bytes the multiple every owner's size and offset is rounded up to, >= 1
     * @return the new options
     */
    public PlanOptions withAlignment(long bytes) {
        return new PlanOptions(includeGraphInputs, bytes, engine, strategy, effort);
    }

    /**
     * A copy with {@code engine} set.
     *
     * @param mode the engine to plan with
     * @return the new options
     */
    public PlanOptions withEngine(EngineMode mode) {
        return new PlanOptions(includeGraphInputs, alignment, mode, strategy, effort);
    }

    /**
     * A copy with {@code strategy} set.
     *
     * @param s offsets (one arena) or slots
     * @return the new options
     */
    public PlanOptions withStrategy(Strategy s) {
        return new PlanOptions(includeGraphInputs, alignment, engine, s, effort);
    }

    /**
     * A copy with {@code effort} set.
     *
     * @param e search effort in iterations, {@code 0..MAX_EFFORT}
     * @return the new options
     */
    public PlanOptions withEffort(int e) {
        return new PlanOptions(includeGraphInputs, alignment, engine, strategy, e);
    }
}
