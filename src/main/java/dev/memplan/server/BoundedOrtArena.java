// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.memplan.ort.OrtCApi;

/**
 * ONNX Runtime settings under which the bytes that leases hold bound what the process holds
 * (docs/library.md, "ONNX Runtime settings for a server with a budget"). Measured: with ORT's
 * defaults the arena extends by powers of two, keeps every region, and the regions of requests in
 * flight at once fragment it, so the process grew 1.3x-1.8x past the budget. Here:
 * <ul>
 *   <li>one CPU arena shared by the process's sessions, registered on ORT Java's environment with
 *       {@code kSameAsRequested}: a region is the bytes a request asked for, never a power of two
 *       (ORT Java cannot set this; the C API is reached through memplan's JNI library);</li>
 *   <li>the arena shrunk at the end of every run ({@code memory.enable_memory_arena_shrinkage}), so
 *       a region no request uses is given back at once;</li>
 *   <li>glibc's mmap threshold fixed, so a region given back leaves the process instead of staying in
 *       a malloc heap (glibc otherwise raises the threshold as large blocks are freed);</li>
 *   <li>memory patterns on, ORT's default and what the prediction models.</li>
 * </ul>
 * Install once per process before creating the sessions; thread-safe.
 */
public final class BoundedOrtArena {
    /** The run-option key that shrinks the CPU arena at the end of each run. */
    public static final String SHRINK_KEY = "memory.enable_memory_arena_shrinkage";
    /** The session-option key that makes a session use the environment's arena. */
    public static final String USE_ENV_ALLOCATORS_KEY = "session.use_env_allocators";
    /** glibc's default mmap threshold, fixed so it no longer rises. */
    static final long MMAP_THRESHOLD_BYTES = 128 * 1024;

    private static volatile BoundedOrtArena installed;

    private BoundedOrtArena() {
    }

    /**
     * Registers the shared arena on ORT Java's environment (once per process: later calls return
     * the same instance) and fixes the C library's mmap threshold.
     *
     * @return the installed settings
     * @throws IllegalStateException naming the cause when ONNX Runtime's C API is not reachable, or
     *                               another CPU arena was registered on the environment first
     */
    public static synchronized BoundedOrtArena install() {
        if (installed == null) {
            OrtCApi.requireLoaded(); // creates ORT's environment first, on a large stack
            OrtCApi.registerArena(OrtEnvironment.getEnvironment(), true, 0);
            try {
                OrtCApi.fixMmapThreshold(MMAP_THRESHOLD_BYTES);
            } catch (IllegalStateException notGlibc) {
                // another C library: its own policy decides when freed regions leave the process
            }
            installed = new BoundedOrtArena();
        }
        return installed;
    }

    /**
     * Sets {@code options} to use the shared arena, with the CPU arena and memory patterns on.
     *
     * @param options the options a session will be created with
     * @return {@code options}
     * @throws OrtException when ONNX Runtime refuses an option
     */
    public OrtSession.SessionOptions configure(OrtSession.SessionOptions options) throws OrtException {
        options.setCPUArenaAllocator(true);
        options.setMemoryPatternOptimization(true);
        options.addConfigEntry(USE_ENV_ALLOCATORS_KEY, "1");
        return options;
    }

    /**
     * Run options that shrink the arena at the end of the run; pass them to every
     * {@code session.run}.
     *
     * @return new options; the caller closes them
     * @throws OrtException when ONNX Runtime refuses the option
     */
    public OrtSession.RunOptions runOptions() throws OrtException {
        OrtSession.RunOptions r = new OrtSession.RunOptions();
        r.addRunConfigEntry(SHRINK_KEY, "cpu:0");
        return r;
    }

    /** {@return {@link #runOptions()} once installed, else ORT's default run options} */
    static OrtSession.RunOptions runOptionsIfInstalled() throws OrtException {
        BoundedOrtArena arena = installed;
        return arena != null ? arena.runOptions() : new OrtSession.RunOptions();
    }

    /**
     * ONNX Runtime's own figures for a session's CPU arena, read through its C API
     * ({@code AllocatorGetStats}, ONNX Runtime 1.23 or newer), which ONNX Runtime Java does not expose.
     * A figure the arena does not report is -1.
     *
     * @param inUseBytes          bytes handed out now
     * @param maxInUseBytes       the most bytes ever handed out at once
     * @param totalAllocatedBytes bytes the arena holds from the system now (its regions): what the
     *                            process pays for
     * @param allocations         allocations served so far
     * @param reserves            regions reserved so far
     */
    public record Stats(long inUseBytes, long maxInUseBytes, long totalAllocatedBytes, long allocations,
                        long reserves) {

        /**
         * Reads the CPU arena statistics of {@code session}: its own arena, or the shared one when its
         * options set {@code session.use_env_allocators=1}.
         *
         * @param session an open session
         * @return the figures now
         * @throws IllegalStateException naming the cause when ONNX Runtime's C API is not reachable or
         *                               the session has no CPU arena
         */
        public static Stats of(OrtSession session) {
            long[] s = OrtCApi.arenaStats(session);
            return new Stats(s[0], s[1], s[2], s[3], s[4]);
        }
    }
}
