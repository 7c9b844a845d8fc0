// SPDX-License-Identifier: Apache-2.0
package dev.memplan.example;

import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.memplan.ort.BoundedOrtArena;

/**
 * The ONNX Runtime settings the server runs with. {@code bounded} is what a server admitting
 * requests against a {@code MemoryBudget} should use; the others are there to measure against
 * ({@code recommended} was this example's choice before memplan could configure ORT's arena, and
 * {@code plain} is ONNX Runtime Java as servers run it without memplan).
 */
public enum OrtSettings {
    /**
     * What memplan configures ({@link BoundedOrtArena}): no arena, every block ORT asks for its
     * own, counted, and kept for reuse only within the budget; memory patterns on; requests lease
     * ORT's predicted arena bytes. The leases and the budget then bound what the process holds.
     */
    BOUNDED,
    /** ONNX Runtime's defaults: an arena that grows in powers of two and keeps it all, memory patterns on. */
    DEFAULTS,
    /**
     * Memory patterns off (one pattern per input shape is cached otherwise, and with dynamic shapes
     * every new shape adds one), and the CPU arena shrunk after every run, so freed chunks go back
     * to the system instead of staying reserved.
     */
    RECOMMENDED,
    /** Memory patterns off and no arena at all: every tensor is a malloc and a free. */
    NO_ARENA,
    /** ONNX Runtime's defaults and no budget: nothing planned, leased or waited for. */
    PLAIN;

    /** The run-option key that shrinks the CPU arena at the end of each run (ONNX Runtime 1.8+). */
    static final String SHRINK_ARENA = "memory.enable_memory_arena_shrinkage";

    /**
     * Session options for these settings.
     *
     * @param intraOpThreads threads per run (1: the server's threads are the parallelism)
     * @param budgetBytes    what the requests may lease at once (the budget less its reserve): with
     *                       {@code bounded}, the counting allocator keeps freed blocks for reuse within it
     * @return new options; the caller closes them
     * @throws OrtException when ONNX Runtime refuses an option
     */
    public OrtSession.SessionOptions sessionOptions(int intraOpThreads, long budgetBytes) throws OrtException {
        OrtSession.SessionOptions o = new OrtSession.SessionOptions();
        o.setIntraOpNumThreads(intraOpThreads);
        o.setInterOpNumThreads(1);
        switch (this) {
            case BOUNDED -> BoundedOrtArena.install().keepFreedBlocksUpTo(budgetBytes).configure(o);
            case DEFAULTS, PLAIN -> { }
            case RECOMMENDED -> o.setMemoryPatternOptimization(false);
            case NO_ARENA -> {
                o.setMemoryPatternOptimization(false);
                o.setCPUArenaAllocator(false);
            }
            default -> throw new AssertionError(this);
        }
        return o;
    }

    /**
     * Run options for these settings.
     *
     * @return new options; the caller closes them
     * @throws OrtException when ONNX Runtime refuses an option
     */
    public OrtSession.RunOptions runOptions() throws OrtException {
        OrtSession.RunOptions r = new OrtSession.RunOptions();
        if (this == RECOMMENDED) {
            r.addRunConfigEntry(SHRINK_ARENA, "cpu:0");
        }
        return r;
    }

    /** {@return whether requests are admitted against the budget at all} */
    public boolean admits() {
        return this != PLAIN;
    }

    /** {@return whether requests lease ORT's predicted arena bytes rather than memplan's own plan} */
    public boolean leasesOrtPrediction() {
        return this == BOUNDED;
    }

    /**
     * Parses a name as the command line and the build give it ({@code recommended}, {@code no-arena}).
     *
     * @param name the name, any case, dashes or underscores
     * @return the settings
     * @throws IllegalArgumentException listing the names when {@code name} is none of them
     */
    public static OrtSettings parse(String name) {
        for (OrtSettings s : values()) {
            if (s.name().equalsIgnoreCase(name.replace('-', '_'))) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown ONNX Runtime settings '" + name
                + "'; use bounded, defaults, recommended, no-arena or plain");
    }
}
