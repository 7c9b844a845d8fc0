// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import java.util.Locale;
import java.util.Objects;

/**
 * The executor a request's bytes are counted for. {@link #memplan()} (the default): an executor
 * that follows memplan's own plan, so the figure is the plan's peak. {@link #ort()}: ONNX Runtime's
 * CPU execution provider, whose arena holds more or less than memplan's plan (it has its own
 * planner, a memory pattern and a BFC arena); the figure is then predicted from the graph ONNX
 * Runtime runs at the given optimization level (docs/design.md, section 13). The ort runtime needs
 * ONNX Runtime Java ({@code com.microsoft.onnxruntime:onnxruntime}) on the class path to obtain that
 * graph; without it, asking for it throws {@link RuntimeUnavailableException}.
 *
 * <p>The prediction is for one intra-op thread, the setting it was measured with: MLAS's
 * convolution working buffer grows with the thread count, which it does not model.
 */
public final class ExecutionRuntime {

    /** ONNX Runtime's graph optimization levels, as {@code SessionOptions.OptLevel} names them. */
    public enum OrtOptimization {
        /** {@code NO_OPT}: the graph as written. */
        NONE("NO_OPT"),
        /** {@code BASIC_OPT}: constant folding and redundant-node elimination. */
        BASIC("BASIC_OPT"),
        /** {@code EXTENDED_OPT}: also fusions into com.microsoft ops. */
        EXTENDED("EXTENDED_OPT"),
        /** {@code ALL_OPT}, ONNX Runtime's default: also layout rewrites (NCHWc on x86). */
        ALL("ALL_OPT");

        private final String ortName;

        OrtOptimization(String ortName) {
            this.ortName = ortName;
        }

        /** {@return the name of ONNX Runtime Java's {@code SessionOptions.OptLevel} constant} */
        public String ortName() {
            return ortName;
        }

        /**
         * The level named {@code name}: {@code none}, {@code basic}, {@code extended} or {@code all}
         * (any case), or the name of ONNX Runtime Java's {@code OptLevel} constant, so that a server
         * can pass {@code optLevel.name()} of the options its session uses.
         *
         * @param name the level's name
         * @return the level
         * @throws IllegalArgumentException naming the levels when {@code name} is none of them
         */
        public static OrtOptimization of(String name) {
            Objects.requireNonNull(name, "name");
            for (OrtOptimization level : values()) {
                if (level.name().equalsIgnoreCase(name) || level.ortName.equalsIgnoreCase(name)) {
                    return level;
                }
            }
            throw new IllegalArgumentException("unknown ONNX Runtime optimization level '" + name
                    + "'; use none, basic, extended or all (or NO_OPT, BASIC_OPT, EXTENDED_OPT, ALL_OPT)");
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final ExecutionRuntime MEMPLAN = new ExecutionRuntime(null);

    /** Null for memplan's own executor. */
    private final OrtOptimization ortOptimization;

    private ExecutionRuntime(OrtOptimization ortOptimization) {
        this.ortOptimization = ortOptimization;
    }

    /** {@return memplan's own executor: the figure is the plan's peak (the default)} */
    public static ExecutionRuntime memplan() {
        return MEMPLAN;
    }

    /** {@return ONNX Runtime's CPU execution provider at its default optimization level (all)} */
    public static ExecutionRuntime ort() {
        return ort(OrtOptimization.ALL);
    }

    /**
     * ONNX Runtime's CPU execution provider at {@code level}: pass the level your sessions use.
     *
     * @param level the sessions' graph optimization level
     * @return the runtime
     */
    public static ExecutionRuntime ort(OrtOptimization level) {
        return new ExecutionRuntime(Objects.requireNonNull(level, "level"));
    }

    /**
     * The runtime named {@code name}: {@code memplan}, or {@code ort} at the default level.
     *
     * @param name {@code memplan} or {@code ort} (any case)
     * @return the runtime
     * @throws IllegalArgumentException naming the runtimes when {@code name} is neither
     */
    public static ExecutionRuntime of(String name) {
        Objects.requireNonNull(name, "name");
        if (name.equalsIgnoreCase("memplan")) {
            return memplan();
        }
        if (name.equalsIgnoreCase("ort")) {
            return ort();
        }
        throw new IllegalArgumentException("unknown runtime '" + name + "'; use memplan or ort");
    }

    /** {@return whether this is ONNX Runtime (else memplan's own executor)} */
    public boolean isOrt() {
        return ortOptimization != null;
    }

    /**
     * The optimization level of an ort runtime.
     *
     * @return the level
     * @throws IllegalStateException for the memplan runtime, which has none
     */
    public OrtOptimization ortOptimization() {
        if (ortOptimization == null) {
            throw new IllegalStateException("the memplan runtime has no ONNX Runtime optimization level");
        }
        return ortOptimization;
    }

    /** {@return {@code memplan} or {@code ort}, as the command line and the plan JSON name it} */
    public String name() {
        return isOrt() ? "ort" : "memplan";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExecutionRuntime r && r.ortOptimization == ortOptimization;
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(ortOptimization);
    }

    /** {@return {@code memplan}, or {@code ort (level all)}} */
    @Override
    public String toString() {
        return isOrt() ? "ort (level " + ortOptimization + ")" : "memplan";
    }
}
