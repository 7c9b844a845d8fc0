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

    /** Graph inputs excluded, alignment 1, the engine of {@code memplan.engine}, offsets, default effort. */
    public static PlanOptions defaults() {
        return new PlanOptions(false, 1, EngineMode.fromSystemProperty(), Strategy.OFFSETS, DEFAULT_EFFORT);
    }

    public PlanOptions withIncludeGraphInputs(boolean include) {
        return new PlanOptions(include, alignment, engine, strategy, effort);
    }

    public PlanOptions withAlignment(long bytes) {
        return new PlanOptions(includeGraphInputs, bytes, engine, strategy, effort);
    }

    public PlanOptions withEngine(EngineMode mode) {
        return new PlanOptions(includeGraphInputs, alignment, mode, strategy, effort);
    }

    public PlanOptions withStrategy(Strategy s) {
        return new PlanOptions(includeGraphInputs, alignment, engine, s, effort);
    }

    public PlanOptions withEffort(int e) {
        return new PlanOptions(includeGraphInputs, alignment, engine, strategy, e);
    }
}
