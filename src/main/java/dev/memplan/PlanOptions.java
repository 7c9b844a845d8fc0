package dev.memplan;

/**
 * How to plan.
 *
 * @param includeGraphInputs whether graph inputs own slots (off by default: the caller usually owns
 *                           its input buffers)
 * @param alignment          every owner's size is rounded up to a multiple of this (>= 1)
 * @param engine             which engine plans
 */
public record PlanOptions(boolean includeGraphInputs, long alignment, EngineMode engine) {

    public PlanOptions {
        if (alignment < 1) {
            throw new IllegalArgumentException("alignment must be >= 1, got " + alignment);
        }
        if (engine == null) {
            throw new IllegalArgumentException("engine must not be null");
        }
    }

    /** Graph inputs excluded, alignment 1, the engine of {@code memplan.engine}. */
    public static PlanOptions defaults() {
        return new PlanOptions(false, 1, EngineMode.fromSystemProperty());
    }

    public PlanOptions withIncludeGraphInputs(boolean include) {
        return new PlanOptions(include, alignment, engine);
    }

    public PlanOptions withAlignment(long bytes) {
        return new PlanOptions(includeGraphInputs, bytes, engine);
    }

    public PlanOptions withEngine(EngineMode mode) {
        return new PlanOptions(includeGraphInputs, alignment, mode);
    }
}
