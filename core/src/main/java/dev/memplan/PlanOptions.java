// SPDX-License-Identifier: Apache-2.0
package dev.memplan;


import java.util.Locale;
import java.util.function.Consumer;
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
 * @param inPlace            whether an output may take the buffer of an input that dies at its node
 *                           ({@link InPlace#AUTO}: on for offsets plans, off for slots plans)
 * @param exact              the limits of the exact search (docs/design.md §5c) that makes each
 *                           offsets plan, or null (the default) for the heuristic planner alone;
 *                           ignored by slots plans
 */
public record PlanOptions(boolean includeGraphInputs, long alignment, EngineMode engine, Strategy strategy,
                          int effort, InPlace inPlace, Packing.ExactLimits exact) {

    /** The effort of {@link #defaults()}: a few greedy orders, then a short improvement phase. */
    public static final int DEFAULT_EFFORT = 1;

    /** The largest effort accepted: keeps every iteration count inside an int ({@link Packing#MAX_EFFORT}). */
    public static final int MAX_EFFORT = Packing.MAX_EFFORT;

    /**
     * Checks the options: alignment >= 1, effort in {@code 0..MAX_EFFORT}, no null field.
     *
     * @param includeGraphInputs whether graph inputs get their own buffers
     * @param alignment the multiple sizes and offsets are rounded up to, >= 1
     * @param engine the engine to plan with
     * @param strategy offsets (one arena) or slots
     * @param effort search effort in iterations, {@code 0..MAX_EFFORT}
     * @param inPlace in-place reuse: auto, on or off
     * @param exact the exact search's limits, or null for none
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
        if (inPlace == null) {
            throw new IllegalArgumentException("inPlace must not be null");
        }
    }

    /**
     * The options of the six fields before the exact mode existed, without it.
     *
     * @param includeGraphInputs whether graph inputs get their own buffers
     * @param alignment the multiple sizes and offsets are rounded up to, >= 1
     * @param engine the engine to plan with
     * @param strategy offsets (one arena) or slots
     * @param effort search effort in iterations, {@code 0..MAX_EFFORT}
     * @param inPlace in-place reuse: auto, on or off
     */
    public PlanOptions(boolean includeGraphInputs, long alignment, EngineMode engine, Strategy strategy, int effort,
                       InPlace inPlace) {
        this(includeGraphInputs, alignment, engine, strategy, effort, inPlace, null);
    }

    /**
     * The options of the five fields before in-place reuse existed, with {@link InPlace#AUTO}.
     *
     * @param includeGraphInputs whether graph inputs get their own buffers
     * @param alignment the multiple sizes and offsets are rounded up to, >= 1
     * @param engine the engine to plan with
     * @param strategy offsets (one arena) or slots
     * @param effort search effort in iterations, {@code 0..MAX_EFFORT}
     */
    public PlanOptions(boolean includeGraphInputs, long alignment, EngineMode engine, Strategy strategy, int effort) {
        this(includeGraphInputs, alignment, engine, strategy, effort, InPlace.AUTO, null);
    }

    /** {@return whether this schedule's outputs may take the buffers of inputs that die at their node} */
    public boolean inPlaceEnabled() {
        return inPlace.enabledFor(strategy);
    }

    /** {@return whether offsets plans are made by the exact search: {@link #exact()} is set and the strategy is offsets} */
    public boolean exactEnabled() {
        return exact != null && strategy == Strategy.OFFSETS;
    }

    /** {@return the default options: graph inputs excluded, alignment 1, the engine of {@code memplan.engine}, offsets, default effort, in-place auto (on for offsets), no exact search} */
    public static PlanOptions defaults() {
        return new PlanOptions(false, 1, EngineMode.fromSystemProperty(), Strategy.OFFSETS, DEFAULT_EFFORT, InPlace.AUTO,
                null);
    }

    /**
     * A copy with {@code includeGraphInputs} set.
     *
     * @param include whether graph inputs get their own buffers
     * @return the new options
     */
    public PlanOptions withIncludeGraphInputs(boolean include) {
        return with(d -> d.includeGraphInputs = include);
    }

    /**
     * A copy with {@code alignment} set.
     *
     * @param bytes the multiple every owner's size and offset is rounded up to, >= 1
     * @return the new options
     */
    public PlanOptions withAlignment(long bytes) {
        return with(d -> d.alignment = bytes);
    }

    /**
     * A copy with {@code engine} set.
     *
     * @param mode the engine to plan with
     * @return the new options
     */
    public PlanOptions withEngine(EngineMode mode) {
        return with(d -> d.engine = mode);
    }

    /**
     * A copy with {@code strategy} set.
     *
     * @param s offsets (one arena) or slots
     * @return the new options
     */
    public PlanOptions withStrategy(Strategy s) {
        return with(d -> d.strategy = s);
    }

    /**
     * A copy with {@code effort} set.
     *
     * @param e search effort in iterations, {@code 0..MAX_EFFORT}
     * @return the new options
     */
    public PlanOptions withEffort(int e) {
        return with(d -> d.effort = e);
    }

    /**
     * A copy with in-place reuse set.
     *
     * @param mode auto (on for offsets, off for slots), on or off
     * @return the new options
     */
    public PlanOptions withInPlace(InPlace mode) {
        return with(d -> d.inPlace = mode);
    }

    /**
     * A copy with in-place reuse on or off, whatever the strategy.
     *
     * @param on whether outputs may take the buffers of inputs that die at their node
     * @return the new options
     */
    public PlanOptions withInPlace(boolean on) {
        return withInPlace(on ? InPlace.ON : InPlace.OFF);
    }

    /**
     * A copy whose offsets plans are made by the exact search (docs/design.md §5c): the heuristic
     * planner's plan at {@link #effort()} seeds it, and the plan is the best the search found
     * within {@code limits}; {@link ActivationPlan#exactStatus()} says why it stopped and
     * {@link ActivationPlan#provenBoundBytes()} what it proved. Under a node limit alone the plan
     * is the same on both engines and every machine.
     *
     * @param limits the search's node limit, time limit and capacity; null plans without it
     * @return the new options
     */
    public PlanOptions withExact(Packing.ExactLimits limits) {
        return with(d -> d.exact = limits);
    }

    /** This record with one change: every wither goes through the canonical constructor's checks once. */
    private PlanOptions with(Consumer<Draft> change) {
        Draft draft = new Draft(this);
        change.accept(draft);
        return new PlanOptions(draft.includeGraphInputs, draft.alignment, draft.engine, draft.strategy, draft.effort,
                draft.inPlace, draft.exact);
    }

    /** The options' fields, open to change, for {@link #with}. */
    private static final class Draft {
        boolean includeGraphInputs;
        long alignment;
        EngineMode engine;
        Strategy strategy;
        int effort;
        InPlace inPlace;
        Packing.ExactLimits exact;

        Draft(PlanOptions o) {
            includeGraphInputs = o.includeGraphInputs;
            alignment = o.alignment;
            engine = o.engine;
            strategy = o.strategy;
            effort = o.effort;
            inPlace = o.inPlace;
            exact = o.exact;
        }
    }

    /**
     * How a plan lays owners out in memory.
     *
     * <ul>
     *   <li>{@link #OFFSETS} (the default): one arena; every owner gets a byte offset into it, and two
     *       owners live at the same position never share a byte. Reaches the lower bound or close to it.
     *   <li>{@link #SLOTS}: the seed's greedy best fit; owners share reusable slots, and the bytes to
     *       reserve are the sum of slot capacities. Slot k starts at the sum of the capacities of slots
     *       {@code 0..k-1}, so a slots plan has offsets too.
     * </ul>
     */
    public enum Strategy {
        /** One arena: every owner gets a byte offset into it. */
        OFFSETS,
        /** Reusable slots by greedy best fit; slot bases give the offsets. */
        SLOTS;

        /**
         * Parses {@code offsets} or {@code slots} (case-insensitive).
         *
         * @param text {@code offsets} or {@code slots}, in any case
         * @return the strategy
         */
        public static Strategy parse(String text) {
            try {
                return valueOf(text.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown strategy '" + text + "'; use offsets or slots", e);
            }
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Whether a node's output may take the buffer of an input that dies at that node (in-place reuse,
     * docs/design.md §3b). {@link #AUTO}, the default, keeps the seed's slots contract: on for offsets
     * plans, off for slots plans.
     */
    public enum InPlace {
        /** On for {@link Strategy#OFFSETS}, off for {@link Strategy#SLOTS}. */
        AUTO,
        /** In-place reuse for either strategy. */
        ON,
        /** Every produced value owns its buffer (the liveness of §3 alone). */
        OFF;

        /**
         * {@return whether in-place reuse applies to plans of {@code strategy}}
         *
         * @param strategy the plan's strategy
         */
        public boolean enabledFor(Strategy strategy) {
            return this == ON || (this == AUTO && strategy == Strategy.OFFSETS);
        }

        /**
         * Parses {@code auto}, {@code on} or {@code off} (case-insensitive).
         *
         * @param text {@code auto}, {@code on} or {@code off}, in any case
         * @return the mode
         */
        public static InPlace parse(String text) {
            try {
                return valueOf(text.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("unknown in-place mode '" + text + "'; use on, off or auto", e);
            }
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
