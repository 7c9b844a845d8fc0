// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.memplan.ort.internal.OrtCApi;

/**
 * ONNX Runtime settings under which the bytes that leases hold bound what the process holds
 * (docs/library.md, "ONNX Runtime settings for a server with a budget"). Measured: with ORT's
 * defaults the arena extends by powers of two, keeps every region, and the regions of requests in
 * flight at once fragment it, so the process grew 1.3x-1.8x past the budget. Even an arena that
 * extends by what is asked and is shrunk after every run passed the leases in flight by up to 3 MB:
 * one request's tensors split another's free region, which then cannot be given back. Here:
 * <ul>
 *   <li>no arena: memplan's counting allocator is registered on ORT Java's environment. Every
 *       block of 64 KiB or more that ORT asks for is mapped alone and given back when ORT frees
 *       it, unless {@link #keepFreedBlocksUpTo} lets it be kept for reuse within a limit; smaller
 *       blocks come from the C library. What ORT holds is then what the runs in flight hold, each
 *       at most its prediction, plus what is kept, within the limit. The allocator counts
 *       it, and ORT reports the counts as its allocator statistics (ORT Java cannot register an
 *       allocator; the C API is reached through memplan's JNI library). A lease is what this
 *       allocator is predicted to hold for the run ({@link OrtModel.Plan#boundedArenaBytes()}):
 *       its blocks at their own sizes, 0.37x-0.74x the arena's figure on MiniLM;</li>
 *   <li>memory patterns off. ORT caches a run's pattern under the XOR of all input dims and keeps
 *       the first: a request of 3 x 8 tokens after one of 2 x 9 (both XOR to 11) allocated the
 *       other's block and then each of its own tensors beside it, 1.37x its prediction on MiniLM.
 *       Without patterns every run allocates tensor by tensor, as a shape's first run does, which
 *       the prediction follows to within 0.1%;</li>
 *   <li>glibc's threshold for mapping a block alone fixed at its default, 128 KiB. glibc raises
 *       it as mapped blocks are freed, up to 32 MiB, and keeps blocks freed below it in its heap:
 *       ORT's session creation left 29-77 MiB there, and runs added what kernels allocate outside
 *       the allocator (MiniLM int8 at 256 MiB: resident growth 1.08x the budget, 1.04x fixed, the
 *       same throughput).</li>
 * </ul>
 * Install once per process before creating the sessions; thread-safe.
 */
public final class BoundedOrtArena {
    /** The session-option key that makes a session use the environment's allocator. */
    public static final String USE_ENV_ALLOCATORS_KEY = OrtCApi.USE_ENV_ALLOCATORS_KEY;

    private static volatile BoundedOrtArena installed;

    private BoundedOrtArena() {
    }

    /** glibc's default threshold for mapping a block alone, fixed so that it no longer rises. */
    static final long MMAP_THRESHOLD_BYTES = 128 * 1024;

    /**
     * Registers the counting allocator on ORT Java's environment and fixes glibc's threshold for
     * mapping a block alone (once per process: later calls return the same instance). It keeps no
     * freed block until {@link #keepFreedBlocksUpTo} is set.
     *
     * @return the installed settings
     * @throws IllegalStateException naming the cause when ONNX Runtime's C API is not reachable
     */
    public static synchronized BoundedOrtArena install() {
        if (installed == null) {
            OrtCApi.requireLoaded(); // creates ORT's environment first, on a large stack
            OrtCApi.registerCountingAllocator(OrtEnvironment.getEnvironment());
            OrtCApi.fixMallocThresholds(MMAP_THRESHOLD_BYTES); // false off glibc: nothing to fix there
            installed = new BoundedOrtArena();
        }
        return installed;
    }

    /**
     * Lets the allocator keep freed blocks for reuse while all it holds from the system stays
     * within {@code bytes}: pass the capacity of the budget whose leases cover the sessions. Reused
     * blocks need no fresh pages from the kernel, which otherwise costs each run its allocation
     * over again. What ORT holds then stays within the larger of {@code bytes} and what the runs
     * in flight hold. Process-wide; 0 (the default) keeps nothing.
     *
     * @param bytes the limit, at least 0
     * @return this
     * @throws IllegalArgumentException when {@code bytes} is negative
     */
    public BoundedOrtArena keepFreedBlocksUpTo(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("keepFreedBlocksUpTo: bytes must be >= 0, not " + bytes);
        }
        OrtCApi.keepCountedBlocksUpTo(bytes);
        return this;
    }

    /**
     * Sets {@code options} to use the counting allocator, with memory patterns off.
     *
     * @param options the options a session will be created with
     * @return {@code options}
     * @throws OrtException when ONNX Runtime refuses an option
     */
    public OrtSession.SessionOptions configure(OrtSession.SessionOptions options) throws OrtException {
        return OrtCApi.useCountingAllocator(options);
    }

    /**
     * ONNX Runtime's figures for a session's CPU allocator (its arena, or the counting allocator),
     * read through its C API ({@code AllocatorGetStats}, ONNX Runtime 1.23 or newer), which ONNX
     * Runtime Java does not expose. A figure the allocator does not report is -1.
     *
     * @param inUseBytes          bytes handed out now
     * @param maxInUseBytes       the most bytes ever handed out at once
     * @param totalAllocatedBytes bytes the allocator holds from the system now (an arena's regions;
     *                            the counting allocator's blocks with their headers): what the
     *                            process pays for
     * @param allocations         allocations served so far
     * @param reserves            an arena's regions reserved so far; the counting allocator's
     *                            allocations through {@code Reserve} (initializers)
     */
    public record Stats(long inUseBytes, long maxInUseBytes, long totalAllocatedBytes, long allocations,
                        long reserves) {

        /**
         * Reads the CPU allocator statistics of {@code session}: its own arena's, or the counting
         * allocator's when its options set {@code session.use_env_allocators=1} after {@link #install()}.
         *
         * @param session an open session
         * @return the figures now
         * @throws IllegalStateException naming the cause when ONNX Runtime's C API is not reachable
         */
        public static Stats of(OrtSession session) {
            long[] s = OrtCApi.arenaStats(session);
            return new Stats(s[0], s[1], s[2], s[3], s[4]);
        }
    }
}
