// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import dev.memplan.ort.internal.OrtUnavailable;
import dev.memplan.ort.internal.ResidentProbe;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The native memory a server process needs for its ONNX Runtime models beyond its JVM (heap,
 * metaspace, the JVM's own threads): what to add to the heap for a container's limit, and the
 * capacity of the {@link dev.memplan.server.MemoryBudget} its requests lease on. For {@code K}
 * request threads, {@code T} intra-op threads and the longest request, under {@link BoundedOrtArena}:
 *
 * <pre>{@code
 * ServerSize size = ServerSize.measure(ortModel, Map.of("batch_size", 8L, "sequence_length", 512L), 8, 1);
 * MemoryBudget budget = MemoryBudget.of("embeddings", size.budgetBytes(), 0);
 * long limit = heapBytes + size.residentBytes();     // the container's memory limit, JVM overhead aside
 * }</pre>
 *
 * <p>The parts not derived are measured in a child JVM (docs/design.md, section 13b): ORT's
 * runtime, the session with its weights and prepacked copies after a warm-up run, memplan's own,
 * and the thread-local buffers a request thread adds running the longest request. The requests in
 * flight are counted at the budget: the counting allocator keeps freed blocks for reuse up to it,
 * so what it holds tends to the budget under load (measured 0.92x-0.99x). Immutable.
 *
 * @param concurrency        request threads: requests in flight at once
 * @param intraOpThreads     ONNX Runtime's intra-op threads per session
 * @param runtimeBytes       ONNX Runtime's library and environment, once per process (measured)
 * @param sessionBytes       the sessions: weights, prepacked copies, a warm-up run (measured)
 * @param memplanBytes       memplan's own beyond the heap: engine, compile, allocator library (measured)
 * @param requestBytes       one longest request's lease, what ORT is predicted to hold for it under
 *                           {@link BoundedOrtArena} (derived)
 * @param requestThreadBytes the thread-local buffers one request thread adds (measured)
 * @param poolThreadBytes    what the first longest run adds beyond its blocks and its thread: the
 *                           intra-op pool's buffers, one-time growth (measured)
 */
public record ServerSize(int concurrency, int intraOpThreads, long runtimeBytes, long sessionBytes, long memplanBytes,
                         long requestBytes, long requestThreadBytes, long poolThreadBytes) {

    /**
     * Checks the parts.
     *
     * @param concurrency        at least 1
     * @param intraOpThreads     at least 1
     * @param runtimeBytes       at least 0
     * @param sessionBytes       at least 0
     * @param memplanBytes       at least 0
     * @param requestBytes       at least 0
     * @param requestThreadBytes at least 0
     * @param poolThreadBytes    at least 0
     * @throws IllegalArgumentException naming the part out of range
     */
    public ServerSize {
        if (concurrency < 1 || intraOpThreads < 1) {
            throw new IllegalArgumentException("concurrency and intraOpThreads must be >= 1, not " + concurrency
                    + " and " + intraOpThreads);
        }
        long[] parts = {runtimeBytes, sessionBytes, memplanBytes, requestBytes, requestThreadBytes, poolThreadBytes};
        String[] names = {"runtimeBytes", "sessionBytes", "memplanBytes", "requestBytes", "requestThreadBytes",
                "poolThreadBytes"};
        for (int i = 0; i < parts.length; i++) {
            if (parts[i] < 0) {
                throw new IllegalArgumentException(names[i] + " must be >= 0, not " + parts[i]);
            }
        }
    }

    /**
     * Measures a server of one model: runs {@code model}'s file in ONNX Runtime in a child JVM with
     * {@code intraOpThreads} and {@link BoundedOrtArena}'s settings, at the level it was compiled
     * for, once with every symbol at 1 and twice at {@code longest}. Takes a few runs of the longest
     * request (seconds for a small transformer at 8 x 512 tokens).
     *
     * @param model          the model, compiled for ORT
     * @param longest        the bindings of the longest request the server admits
     * @param concurrency    request threads
     * @param intraOpThreads ORT's intra-op threads per session
     * @return the size
     * @throws IllegalArgumentException naming the symbols when {@code longest} leaves some unbound, or
     *                                  when a count is below 1
     * @throws OrtUnavailableException  when ONNX Runtime Java cannot start
     * @throws dev.memplan.MemplanException with ORT's reason when it cannot run the model
     */
    public static ServerSize measure(OrtModel model, Map<String, Long> longest, int concurrency, int intraOpThreads) {
        Objects.requireNonNull(model, "model");
        if (concurrency < 1 || intraOpThreads < 1) {
            throw new IllegalArgumentException("concurrency and intraOpThreads must be >= 1, not " + concurrency
                    + " and " + intraOpThreads);
        }
        OrtModel.Plan plan = model.plan(longest);
        OptionalLong lease = plan.boundedArenaBytes();
        if (lease.isEmpty()) {
            throw new IllegalArgumentException("the longest request leaves " + plan.plan().unboundSymbols()
                    + " unbound; bind every symbol of " + model.model().symbols());
        }
        ResidentProbe.Figures f;
        try {
            f = ResidentProbe.measure(model.file(), model.level().ortName(), intraOpThreads, lease.getAsLong(), longest);
        } catch (OrtUnavailable e) {
            throw new OrtUnavailableException(e.getMessage(), e);
        }
        return of(f, lease.getAsLong(), concurrency, intraOpThreads);
    }

    /** The size the probe's figures give: each part a difference of two steps, never below 0. */
    static ServerSize of(ResidentProbe.Figures f, long lease, int concurrency, int intraOpThreads) {
        long thread = Math.max(0, f.freshThread() - f.longest());
        long pool = Math.max(0, f.longest() - f.warmup() - f.allocatorGrowth() - thread);
        return new ServerSize(concurrency, intraOpThreads, Math.max(0, f.runtime() - f.memplan()),
                Math.max(0, f.warmup() - f.runtime()), Math.max(0, f.memplan() - f.jvm()), lease, thread, pool);
    }

    /**
     * A server of this model and {@code other} in one process, on the same request threads: ORT's
     * runtime once, both sessions and pools, and the larger request and thread buffers, since a
     * request thread runs one request at a time.
     *
     * @param other the other model's size, at the same concurrency and intra-op threads
     * @return the size of a server of both
     * @throws IllegalArgumentException when the concurrency or intra-op threads differ
     */
    public ServerSize and(ServerSize other) {
        if (other.concurrency != concurrency || other.intraOpThreads != intraOpThreads) {
            throw new IllegalArgumentException("sizes at " + concurrency + " request and " + intraOpThreads
                    + " intra-op threads and at " + other.concurrency + " and " + other.intraOpThreads
                    + " do not add up; measure both at the same counts");
        }
        return new ServerSize(concurrency, intraOpThreads, Math.max(runtimeBytes, other.runtimeBytes),
                Math.addExact(sessionBytes, other.sessionBytes), Math.addExact(memplanBytes, other.memplanBytes),
                Math.max(requestBytes, other.requestBytes), Math.max(requestThreadBytes, other.requestThreadBytes),
                Math.addExact(poolThreadBytes, other.poolThreadBytes));
    }

    /** {@return the capacity to give the {@code MemoryBudget}: {@code concurrency} longest requests' leases} */
    public long budgetBytes() {
        return Math.multiplyExact(concurrency, requestBytes);
    }

    /** {@return the thread-local buffers: each request thread's, and the intra-op pools'} */
    public long threadBytes() {
        return Math.addExact(Math.multiplyExact(concurrency, requestThreadBytes), poolThreadBytes);
    }

    /**
     * {@return the native memory the process needs beyond its JVM: runtime, sessions, memplan, the
     * requests in flight at the budget, thread buffers}
     */
    public long residentBytes() {
        return Math.addExact(Math.addExact(Math.addExact(runtimeBytes, sessionBytes), Math.addExact(memplanBytes,
                budgetBytes())), threadBytes());
    }
}
