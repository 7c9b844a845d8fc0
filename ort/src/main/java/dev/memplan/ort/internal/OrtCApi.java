// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;

/**
 * ONNX Runtime's C API calls that ONNX Runtime Java does not offer, on the {@code libonnxruntime.so}
 * ORT Java has loaded ({@code src/main/cpp/ort_arena.h}): register memplan's counting allocator on
 * ORT Java's environment and read a session's allocator statistics. ORT Java keeps its native
 * handles in private fields; they are read by reflection (ORT Java on the class path, or as an
 * automatic module).
 */
public final class OrtCApi {
    private static final int ERR_LEN = 512;
    /** The most entries the counting allocator's record holds (its kMaxLog). */
    private static final int COUNTING_LOG_ENTRIES = 4096;

    private OrtCApi() {
    }

    /** Loads the JNI library once, after ORT Java's own (whose libonnxruntime it calls into). */
    private static final class Library {
        static final Throwable FAILURE = loadOnLargeStack();
    }

    /**
     * ORT Java 1.29 crashes creating its environment on a 1 MB stack with a long command line (its
     * telemetry's regex), so both loads run on a thread with a large stack. The thread's code lives
     * in this class, not in {@link Library}: the thread would otherwise wait for Library's
     * initialization, which waits for the thread.
     */
    private static Throwable loadOnLargeStack() {
        Throwable[] failure = new Throwable[1];
        Thread t = new Thread(null, () -> failure[0] = loadBoth(), "memplan-ort-load", 64L << 20);
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e;
        }
        return failure[0];
    }

    private static Throwable loadBoth() {
        try {
            OrtEnvironment.getEnvironment();
            Loader.load(OrtArenaNative.class);
            return null;
        } catch (Throwable e) { // UnsatisfiedLinkError, NoClassDefFoundError, an ORT load failure
            return e;
        }
    }

    /**
     * Loads ORT Java's environment (on a thread with a large stack) and memplan's C API library.
     *
     * @throws IllegalStateException naming the cause when either cannot load
     */
    public static void requireLoaded() {
        if (Library.FAILURE != null) {
            throw new IllegalStateException("ONNX Runtime's C API is not reachable here (" + Library.FAILURE
                    + "); put ONNX Runtime Java 1.23 or newer and the memplan jar for this platform on the class path");
        }
    }

    /** The session-option key that makes a session use the environment's allocator. */
    public static final String USE_ENV_ALLOCATORS_KEY = "session.use_env_allocators";

    /**
     * Sets {@code options} to run on the counting allocator {@link #registerCountingAllocator}
     * registered, with memory patterns off: every run allocates tensor by tensor, which the
     * prediction's lease follows (ORT keys cached patterns by the XOR of the input dims, so a
     * pattern may be another shape's).
     *
     * @param options the options a session will be created with
     * @return {@code options}
     * @throws OrtException when ONNX Runtime refuses an option
     */
    public static OrtSession.SessionOptions useCountingAllocator(OrtSession.SessionOptions options)
            throws OrtException {
        options.setMemoryPatternOptimization(false);
        options.addConfigEntry(USE_ENV_ALLOCATORS_KEY, "1");
        return options;
    }

    /**
     * Registers memplan's counting CPU allocator on ORT Java's environment ({@code
     * src/main/cpp/ort_counting_allocator.h}), used by every session created with {@code
     * session.use_env_allocators=1} instead of ORT's arena: each block ORT asks for is its own,
     * given back when ORT frees it or kept for reuse within {@link #keepCountedBlocksUpTo}. Once per
     * process; later calls do nothing.
     *
     * @param env ORT Java's environment ({@code OrtEnvironment.getEnvironment()})
     * @throws IllegalStateException with ONNX Runtime's message when it refuses
     */
    public static void registerCountingAllocator(OrtEnvironment env) {
        requireLoaded();
        byte[] err = new byte[ERR_LEN];
        check(OrtArenaNative.memplan_ort_register_counting_allocator(handle(env), err, ERR_LEN), err);
    }

    /**
     * Lets the counting allocator keep freed blocks for reuse (their pages stay faulted in, so a
     * later run does not pay the kernel for fresh ones) while all it holds from the system stays
     * within {@code bytes}; gives back what is kept past it now. 0, the default, keeps none.
     *
     * @param bytes the limit, at least 0
     * @throws IllegalStateException when {@code bytes} is negative
     */
    public static void keepCountedBlocksUpTo(long bytes) {
        requireLoaded();
        byte[] err = new byte[ERR_LEN];
        check(OrtArenaNative.memplan_ort_counting_keep_up_to(bytes, err, ERR_LEN), err);
    }

    /**
     * Fixes the size from which the C library maps a block alone, and gives it back when it is
     * freed, at {@code bytes} ({@code src/main/cpp/ort_counting_allocator.h}): glibc otherwise raises
     * it as mapped blocks are freed and keeps what is freed below it. Process-wide.
     *
     * @param bytes the size, 1 B to 32 MiB
     * @return false where the C library is not glibc or does not take the setting: nothing changed
     * @throws IllegalStateException when {@code bytes} is out of range
     */
    public static boolean fixMallocThresholds(long bytes) {
        requireLoaded();
        byte[] err = new byte[ERR_LEN];
        int rc = OrtArenaNative.memplan_ort_fix_malloc_thresholds(bytes, err, ERR_LEN);
        if (rc == OrtArenaNative.UNAVAILABLE) {
            return false;
        }
        check(rc, err);
        return true;
    }

    /**
     * Starts the counting allocator's peaks again from what it holds now: later figures give the
     * peaks of what follows.
     */
    public static void restartCountingPeak() {
        requireLoaded();
        byte[] err = new byte[ERR_LEN];
        check(OrtArenaNative.memplan_ort_counting_restart_peak(err, ERR_LEN), err);
    }

    /**
     * {@return the most bytes the counting allocator held from the system at once since the last
     * {@link #restartCountingPeak()}: blocks with their headers and page tails, and kept regions}
     */
    public static long countingMaxHeld() {
        requireLoaded();
        long[] out = new long[1];
        byte[] err = new byte[ERR_LEN];
        check(OrtArenaNative.memplan_ort_counting_max_held(out, err, ERR_LEN), err);
        return out[0];
    }

    /**
     * Takes {@code size} bytes from the counting allocator, for memory a lease covers outside ORT's
     * runs (a request's joined outputs): it is counted, and kept for reuse within the keep limit,
     * with ORT's own blocks. Give it back with {@link #releaseCounted}; the contents start undefined.
     *
     * @param size the bytes, 1 B to 2 GiB
     * @return a direct buffer over the block, in the platform's byte order
     * @throws IllegalStateException when the size is out of range or the system has no memory
     */
    public static ByteBuffer allocateCounted(long size) {
        requireLoaded();
        if (size <= 0 || size > Integer.MAX_VALUE) {
            throw new IllegalStateException("a counted buffer holds 1 B to 2 GiB, not " + size + " bytes");
        }
        long[] out = new long[1];
        byte[] err = new byte[ERR_LEN];
        check(OrtArenaNative.memplan_ort_counting_allocate(size, out, err, ERR_LEN), err);
        return new BytePointer(new Address(out[0], size)).capacity(size).asByteBuffer().order(ByteOrder.nativeOrder());
    }

    /**
     * Gives back a buffer {@link #allocateCounted} returned; nothing may read it afterwards.
     *
     * @param buffer the buffer, as returned (its position and limit do not matter)
     * @throws IllegalStateException when the buffer is not one {@link #allocateCounted} returned, or
     *                               was given back already
     */
    public static void releaseCounted(ByteBuffer buffer) {
        requireLoaded();
        byte[] err = new byte[ERR_LEN];
        check(OrtArenaNative.memplan_ort_counting_release(new BytePointer(buffer).address(), err, ERR_LEN), err);
    }

    /**
     * {@return what the counting allocator holds from the system for a block of {@code size}
     * bytes: a 64-byte header, whole pages from 64 KiB}
     */
    public static long countedBytes(long size) {
        return BfcArena.countedBlock(size);
    }

    /** A native address as a JavaCPP pointer, to make a buffer over it. */
    private static final class Address extends Pointer {
        Address(long address, long size) {
            this.address = address;
            this.limit = size;
            this.capacity = size;
        }
    }

    /**
     * Starts recording each block the counting allocator hands out (its size) and each of those
     * given back (minus its number in the record, from 1), in order.
     */
    public static void startCountingLog() {
        requireLoaded();
        byte[] err = new byte[ERR_LEN];
        check(OrtArenaNative.memplan_ort_counting_start_log(err, ERR_LEN), err);
    }

    /**
     * Stops recording.
     *
     * @return what was recorded since {@link #startCountingLog()}, in order: sizes handed out, and
     *         minus the number of each of those given back
     * @throws IllegalStateException when the record filled up (4,096 entries): it would miss blocks
     */
    public static long[] stopCountingLog() {
        requireLoaded();
        long[] out = new long[COUNTING_LOG_ENTRIES];
        int[] count = new int[1];
        byte[] err = new byte[ERR_LEN];
        check(OrtArenaNative.memplan_ort_counting_stop_log(out, out.length, count, err, ERR_LEN), err);
        if (count[0] >= out.length) {
            throw new IllegalStateException("it took and gave back more than " + (out.length - 1)
                    + " blocks in one run, more than memplan records");
        }
        return java.util.Arrays.copyOf(out, count[0]);
    }

    /**
     * The counting allocator's figures, in {@link #arenaStats}' order: in use, max in use, total
     * allocated (in use plus a 64-byte header per block), allocations, reserves.
     *
     * @return the five figures
     */
    public static long[] countingStats() {
        requireLoaded();
        long[] out = new long[OrtArenaNative.NUM_STATS];
        byte[] err = new byte[ERR_LEN];
        check(OrtArenaNative.memplan_ort_counting_stats(out, out.length, err, ERR_LEN), err);
        return out;
    }

    /**
     * The CPU arena statistics of a session ({@code AllocatorGetStats}): in use, max in use, total
     * allocated (reserved), allocations, reserves; -1 for a figure the arena does not report.
     *
     * @param session an open session
     * @return the five figures, in that order
     * @throws IllegalStateException with ONNX Runtime's message when it cannot answer
     */
    public static long[] arenaStats(OrtSession session) {
        requireLoaded();
        long[] out = new long[OrtArenaNative.NUM_STATS];
        byte[] err = new byte[ERR_LEN];
        check(OrtArenaNative.memplan_ort_arena_stats(handle(session), out, out.length, err, ERR_LEN), err);
        return out;
    }

    /**
     * The state a new session leaves its CPU arena in, for the replay of its requests
     * ({@link OrtArenaStart}): probed with two allocations given back, so only for a session that
     * serves nothing after.
     *
     * @param session a session just created, on ORT's own arena
     * @return the start, {@link OrtArenaStart#EMPTY} when the arena has no region yet, or empty when
     *         the regions' free bytes are more than one chunk (not modelled)
     * @throws IllegalStateException with ONNX Runtime's message when it cannot answer
     */
    public static Optional<OrtArenaStart> arenaStart(OrtSession session) {
        requireLoaded();
        long[] out = new long[OrtArenaNative.START_LEN];
        byte[] err = new byte[ERR_LEN];
        check(OrtArenaNative.memplan_ort_arena_start(handle(session), out, out.length, err, ERR_LEN), err);
        if (out[0] == OrtArenaNative.START_EMPTY) {
            return Optional.of(OrtArenaStart.EMPTY);
        }
        return out[0] == OrtArenaNative.START_ONE_FREE_CHUNK
                ? Optional.of(new OrtArenaStart(out[1], out[2])) : Optional.empty();
    }

    /**
     * Whether a session's CPU allocator is memplan's counting allocator: created with
     * {@code session.use_env_allocators=1} after the allocator was registered.
     *
     * @param session an open session
     * @return true for the counting allocator, false for ORT's own arena
     * @throws IllegalStateException with ONNX Runtime's message when it cannot answer
     */
    public static boolean usesCountingAllocator(OrtSession session) {
        requireLoaded();
        long[] out = new long[OrtArenaNative.NUM_STATS + 1];
        byte[] err = new byte[ERR_LEN];
        check(OrtArenaNative.memplan_ort_arena_stats(handle(session), out, out.length, err, ERR_LEN), err);
        return out[OrtArenaNative.NUM_STATS] == 1;
    }

    private static void check(int rc, byte[] err) {
        if (rc != OrtArenaNative.OK) {
            int n = 0;
            while (n < err.length && err[n] != 0) {
                n++;
            }
            throw new IllegalStateException(new String(err, 0, n, StandardCharsets.UTF_8).replace('\n', ' '));
        }
    }

    private static long handle(Object ortObject) {
        try {
            Field f = ortObject.getClass().getDeclaredField("nativeHandle");
            f.setAccessible(true);
            long h = f.getLong(ortObject);
            if (h == 0) {
                throw new IllegalStateException(ortObject.getClass().getSimpleName() + " is closed");
            }
            return h;
        } catch (ReflectiveOperationException | RuntimeException e) {
            if (e instanceof IllegalStateException ise) {
                throw ise;
            }
            throw new IllegalStateException("cannot read the native handle of ONNX Runtime Java's "
                    + ortObject.getClass().getSimpleName() + " (" + e + "); use ONNX Runtime Java 1.23 or newer on"
                    + " the class path", e);
        }
    }
}
