// SPDX-License-Identifier: Apache-2.0
package dev.memplan.example;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.memplan.onnx.BindingConflictException;
import dev.memplan.server.OnnxPlan;
import dev.memplan.ort.BoundedOrtArena;
import dev.memplan.server.Bucketing;
import dev.memplan.server.BudgetExceededException;
import dev.memplan.server.CompiledModel;
import dev.memplan.server.MemoryBudget;
import dev.memplan.ort.OrtModel;
import dev.memplan.server.PlanCache;
import java.nio.LongBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sentence embeddings with MiniLM: memplan plans each request (cached, sequence lengths bucketed to
 * multiples of 64), a {@link MemoryBudget} admits it for the bytes its plan reserves, and ONNX
 * Runtime runs it while the lease is held. Thread-safe: one ONNX Runtime session serves every thread.
 */
public final class EmbeddingService implements AutoCloseable {
    /** What became of one request. */
    public enum Status {
        /** embedded */
        OK,
        /** the budget had no room within the wait limit: a server answers 503, the client retries */
        BUSY,
        /** the model cannot take it (longer than 512 tokens) or no budget ever could: 413 */
        TOO_LARGE
    }

    /**
     * One answer.
     *
     * @param status     what became of the request
     * @param embeddings one mean-pooled vector per sequence (empty unless {@code OK})
     * @param leaseBytes the bytes the request held while it ran (0 unless {@code OK})
     * @param message    why it was refused (empty when {@code OK})
     */
    public record Response(Status status, float[][] embeddings, long leaseBytes, String message) {
    }

    private final OrtEnvironment env = OrtEnvironment.getEnvironment();
    private final OrtSettings settings;
    private final OrtSession session;
    private final PlanCache plans;
    /** ORT's prediction beside memplan's plans, or null when leases hold memplan's own figure. */
    private final OrtModel ortModel;
    private final MemoryBudget budget;
    private final Duration waitLimit;
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong maxHeld = new AtomicLong();

    /**
     * Compiles the model for planning and opens an ONNX Runtime session on it.
     *
     * @param model     MiniLM's {@code .onnx} file
     * @param settings  ONNX Runtime's memory settings
     * @param budget    the budget requests are admitted against
     * @param waitLimit how long a request may wait for room before it is answered BUSY
     * @throws OrtException when ONNX Runtime cannot load the model
     */
    public EmbeddingService(Path model, OrtSettings settings, MemoryBudget budget, Duration waitLimit)
            throws OrtException {
        this(model, settings, 1, budget, waitLimit);
    }

    /**
     * Compiles the model for planning and opens an ONNX Runtime session on it.
     *
     * @param model          MiniLM's {@code .onnx} file
     * @param settings       ONNX Runtime's memory settings
     * @param intraOpThreads ONNX Runtime's threads per run
     * @param budget         the budget requests are admitted against
     * @param waitLimit      how long a request may wait for room before it is answered BUSY
     * @throws OrtException when ONNX Runtime cannot load the model
     */
    public EmbeddingService(Path model, OrtSettings settings, int intraOpThreads, MemoryBudget budget,
                            Duration waitLimit) throws OrtException {
        this.settings = settings;
        try (OrtSession.SessionOptions options = settings.sessionOptions(intraOpThreads, budget.capacityBytes())) {
            this.session = env.createSession(model.toString(), options);
        }
        // bounded: leases hold ORT's predicted arena bytes for each cached plan
        this.ortModel = settings.leasesOrtPrediction() ? OrtModel.compile(model) : null;
        CompiledModel compiled = ortModel != null ? ortModel.model() : CompiledModel.compile(model);
        this.plans = PlanCache.of(compiled, 256, Bucketing.none().multipleOf("sequence_length", 64));
        this.budget = budget;
        this.waitLimit = waitLimit;
    }

    /**
     * Embeds a batch of token sequences of equal length.
     *
     * @param tokenIds one row of token ids per sequence, all rows of one length
     * @return the answer
     * @throws InterruptedException when the thread is interrupted while waiting for room
     * @throws OrtException         when ONNX Runtime fails to run
     */
    public Response embed(long[][] tokenIds) throws InterruptedException, OrtException {
        int batch = tokenIds.length;
        int seq = tokenIds[0].length;
        Map<String, long[]> shapes = Map.of("input_ids", new long[] {batch, seq},
                "attention_mask", new long[] {batch, seq}, "token_type_ids", new long[] {batch, seq});
        OnnxPlan plan;
        Optional<MemoryBudget.Lease> lease;
        try {
            plan = plans.planForInputs(shapes);
            lease = ortModel != null ? budget.tryAcquire(ortModel.predict(plan), waitLimit)
                    : budget.tryAcquire(plan, waitLimit);
        } catch (BindingConflictException | BudgetExceededException e) {
            return new Response(Status.TOO_LARGE, new float[0][], 0, e.getMessage());
        }
        if (lease.isEmpty()) {
            return new Response(Status.BUSY, new float[0][], 0, "no room in the memory budget within " + waitLimit);
        }
        try (MemoryBudget.Lease l = lease.get()) {
            long now = held.addAndGet(l.bytes());
            maxHeld.accumulateAndGet(now, Math::max);
            try {
                return new Response(Status.OK, run(tokenIds), l.bytes(), "");
            } finally {
                held.addAndGet(-l.bytes());
            }
        }
    }

    private float[][] run(long[][] tokenIds) throws OrtException {
        int batch = tokenIds.length;
        int seq = tokenIds[0].length;
        long[] shape = {batch, seq};
        LongBuffer ids = LongBuffer.allocate(batch * seq);
        LongBuffer mask = LongBuffer.allocate(batch * seq);
        for (long[] row : tokenIds) {
            ids.put(row);
            for (int i = 0; i < seq; i++) {
                mask.put(1L);
            }
        }
        ids.flip();
        mask.flip();
        try (OnnxTensor inputIds = OnnxTensor.createTensor(env, ids, shape);
             OnnxTensor attention = OnnxTensor.createTensor(env, mask, shape);
             OnnxTensor types = OnnxTensor.createTensor(env, LongBuffer.allocate(batch * seq), shape);
             OrtSession.RunOptions runOptions = settings.runOptions();
             OrtSession.Result result = session.run(Map.of("input_ids", inputIds, "attention_mask", attention,
                     "token_type_ids", types), runOptions)) {
            float[][][] hidden = (float[][][]) result.get(0).getValue();
            float[][] pooled = new float[batch][hidden[0][0].length];
            for (int b = 0; b < batch; b++) {
                for (float[] token : hidden[b]) {
                    for (int d = 0; d < token.length; d++) {
                        pooled[b][d] += token[d] / seq;
                    }
                }
            }
            return pooled;
        }
    }

    /** {@return the budget requests are admitted against} */
    public MemoryBudget budget() {
        return budget;
    }

    /** {@return the plan cache} */
    public PlanCache plans() {
        return plans;
    }

    /** {@return ONNX Runtime's figures for the session's CPU arena now} */
    public BoundedOrtArena.Stats arenaStats() {
        return BoundedOrtArena.Stats.of(session);
    }

    /** {@return the most bytes that leases of this service held at once, counted outside the budget} */
    public long maxHeldBytes() {
        return maxHeld.get();
    }

    /** {@return bytes held by leases of this service now, counted outside the budget} */
    public long heldBytes() {
        return held.get();
    }

    @Override
    public void close() throws OrtException {
        session.close();
    }
}
