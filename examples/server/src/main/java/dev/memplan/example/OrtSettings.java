// SPDX-License-Identifier: Apache-2.0
package dev.memplan.example;

import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;

/**
 * The ONNX Runtime settings the server runs with. {@code recommended} is what a server admitting
 * requests against a {@code MemoryBudget} should use; the others are there to measure against.
 */
public enum OrtSettings {
    /** ONNX Runtime's defaults: an arena that grows in powers of two and keeps it all, memory patterns on. */
    DEFAULTS,
    /**
     * Memory patterns off (one pattern per input shape is cached otherwise, and with dynamic shapes
     * every new shape adds one), and the CPU arena shrunk after every run, so freed chunks go back
     * to the system instead of staying reserved.
     */
    RECOMMENDED,
    /** Memory patterns off and no arena at all: every tensor is a malloc and a free. */
    NO_ARENA;

    /** The run-option key that shrinks the CPU arena at the end of each run (ONNX Runtime 1.8+). */
    static final String SHRINK_ARENA = "memory.enable_memory_arena_shrinkage";

    /**
     * Session options for these settings, with one intra-op thread per run: the server's threads
     * are the parallelism, and a budget counts each run's memory once.
     *
     * @return new options; the caller closes them
     * @throws OrtException when ONNX Runtime refuses an option
     */
    public OrtSession.SessionOptions sessionOptions() throws OrtException {
        OrtSession.SessionOptions o = new OrtSession.SessionOptions();
        o.setIntraOpNumThreads(1);
        o.setInterOpNumThreads(1);
        switch (this) {
            case DEFAULTS -> { }
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
                + "'; use defaults, recommended or no-arena");
    }
}
