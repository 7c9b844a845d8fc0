// SPDX-License-Identifier: Apache-2.0
package dev.memplan.example;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.memplan.onnx.BindingConflictException;
import dev.memplan.server.OnnxPlan;
import dev.memplan.ort.BoundedOrtArena;
import dev.memplan.ort.BudgetedOrtSession;
import dev.memplan.server.Bucketing;
import dev.memplan.server.BudgetExceededException;
import dev.memplan.server.CompiledModel;
import dev.memplan.server.MemoryBudget;
import dev.memplan.ort.OrtModel;
import dev.memplan.server.PlanCache;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sentence embeddings with MiniLM behind a {@link MemoryBudget}. Under {@link OrtSettings#BOUNDED}
 * (the documented path) a {@link BudgetedOrtSession} runs each request: it leases ORT's predicted
 * arena bytes, runs a request larger than its share of the budget (the budget over the runs the
 * cores take at once) in pieces of its rows, and releases the lease once the outputs are pooled. The other settings, kept to measure against, lease memplan's own
 * plan (cached, sequence lengths bucketed to multiples of 64) around a plain ORT run, except
 * {@link OrtSettings#PLAIN}, which runs every request at once as servers without memplan do, whole
 * or in runs of at most a fixed number of rows (the batch caps such servers set to stay inside
 * their memory). Thread-safe: one ONNX Runtime session serves every thread.
 */
public final class EmbeddingService implements AutoCloseable {
    /** Per request thread: the direct buffers its input tensors wrap, reused ({@link #inputBuffer}). */
    private static final ThreadLocal<LongBuffer[]> INPUT_BUFFERS = ThreadLocal.withInitial(() -> new LongBuffer[3]);

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
    /** The session inside the budget under {@link OrtSettings#BOUNDED}, else null: leases hold memplan's plan. */
    private final BudgetedOrtSession budgeted;
    private final MemoryBudget budget;
    private final Duration waitLimit;
    /** Under {@link OrtSettings#PLAIN} and {@link OrtSettings#BOUNDED}, the most rows one ORT run takes; 0: no cap. */
    private final int rowsPerRun;
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
        this(model, settings, intraOpThreads, budget, waitLimit, 0);
    }

    /**
     * Compiles the model for planning and opens an ONNX Runtime session on it.
     *
     * @param model          MiniLM's {@code .onnx} file
     * @param settings       ONNX Runtime's memory settings
     * @param intraOpThreads ONNX Runtime's threads per run
     * @param budget         the budget requests are admitted against (not under {@code plain})
     * @param waitLimit      how long a request may wait for room before it is answered BUSY
     * @param rowsPerRun     under {@code plain} and {@code bounded}, the most rows one ORT run takes (a
     *                       batch cap); 0 runs requests whole (or, bounded, in pieces the budget needs)
     * @throws OrtException             when ONNX Runtime cannot load the model
     * @throws IllegalArgumentException when a batch cap is asked for with settings other than {@code plain}
     *                                  or {@code bounded}
     */
    public EmbeddingService(Path model, OrtSettings settings, int intraOpThreads, MemoryBudget budget,
                            Duration waitLimit, int rowsPerRun) throws OrtException {
        if (rowsPerRun < 0 || rowsPerRun > 0 && settings.admits() && !settings.leasesOrtPrediction()) {
            throw new IllegalArgumentException("a batch cap of " + rowsPerRun
                    + " rows per run: give a positive cap, and only with the plain or bounded settings");
        }
        this.settings = settings;
        this.rowsPerRun = rowsPerRun;
        try (OrtSession.SessionOptions options = settings.sessionOptions(intraOpThreads, budget.leasableBytes())) {
            this.session = env.createSession(model.toString(), options);
        }
        // bounded: each request leases ORT's predicted arena bytes, through BudgetedOrtSession
        OrtModel ortModel = settings.leasesOrtPrediction() ? OrtModel.compile(model) : null;
        BudgetedOrtSession inBudget = ortModel != null
                ? BudgetedOrtSession.of(session, ortModel, budget).withRunsInFlight(runsInFlight(intraOpThreads)) : null;
        this.budgeted = inBudget != null && rowsPerRun > 0 ? inBudget.withRowsPerRun(rowsPerRun) : inBudget;
        CompiledModel compiled = ortModel != null ? ortModel.model()
                : settings.admits() ? CompiledModel.compile(model) : null;
        this.plans = compiled == null ? null
                : PlanCache.of(compiled, 256, Bucketing.none().multipleOf("sequence_length", 64));
        this.budget = budget;
        this.waitLimit = waitLimit;
    }

    /**
     * As many runs at once as the cores take: under {@code bounded}, a large request runs in pieces
     * within its share of the budget, the budget over this many.
     *
     * @param intraOpThreads ONNX Runtime's threads per run
     * @return the runs the budget holds room for at once
     */
    static int runsInFlight(int intraOpThreads) {
        return Math.max(1, Runtime.getRuntime().availableProcessors() / intraOpThreads);
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
        if (budgeted != null) {
            return embedInBudget(tokenIds);
        }
        if (!settings.admits()) {
            return new Response(Status.OK, runInPieces(tokenIds), 0, "");
        }
        int batch = tokenIds.length;
        int seq = tokenIds[0].length;
        Map<String, long[]> shapes = Map.of("input_ids", new long[] {batch, seq},
                "attention_mask", new long[] {batch, seq}, "token_type_ids", new long[] {batch, seq});
        OnnxPlan plan;
        Optional<MemoryBudget.Lease> lease;
        try {
            plan = plans.planForInputs(shapes);
            lease = budget.tryAcquire(plan, waitLimit);
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

    /** {@link #embed} through {@link BudgetedOrtSession}: it leases, splits and releases. */
    private Response embedInBudget(long[][] tokenIds) throws InterruptedException, OrtException {
        Map<String, OnnxTensor> inputs = inputs(tokenIds);
        try {
            long bytes = budgeted.leaseBytes(inputs); // a split request's: its largest piece's and the joined outputs'
            Optional<float[][]> pooled = budgeted.run(inputs, waitLimit, result -> {
                long now = held.addAndGet(bytes);
                maxHeld.accumulateAndGet(now, Math::max);
                try {
                    return meanPooled(result);
                } finally {
                    held.addAndGet(-bytes);
                }
            });
            return pooled.map(p -> new Response(Status.OK, p, bytes, ""))
                    .orElseGet(() -> new Response(Status.BUSY, new float[0][], 0,
                            "no room in the memory budget within " + waitLimit));
        } catch (BindingConflictException | BudgetExceededException e) {
            return new Response(Status.TOO_LARGE, new float[0][], 0, e.getMessage());
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    /** Runs the rows in pieces of at most {@link #rowsPerRun}, one after the other, outputs in order. */
    private float[][] runInPieces(long[][] tokenIds) throws OrtException {
        int step = rowsPerRun == 0 ? tokenIds.length : rowsPerRun;
        float[][] pooled = new float[tokenIds.length][];
        for (int from = 0; from < tokenIds.length; from += step) {
            float[][] piece = run(Arrays.copyOfRange(tokenIds, from, Math.min(tokenIds.length, from + step)));
            System.arraycopy(piece, 0, pooled, from, piece.length);
        }
        return pooled;
    }

    private float[][] run(long[][] tokenIds) throws OrtException {
        Map<String, OnnxTensor> inputs = inputs(tokenIds);
        try (OrtSession.RunOptions runOptions = settings.runOptions();
             OrtSession.Result result = session.run(inputs, runOptions)) {
            return meanPooled(result);
        } finally {
            inputs.values().forEach(OnnxTensor::close);
        }
    }

    /** MiniLM's inputs for rows of token ids of one length: every token attended, one segment. */
    private Map<String, OnnxTensor> inputs(long[][] tokenIds) throws OrtException {
        int batch = tokenIds.length;
        int seq = tokenIds[0].length;
        long[] shape = {batch, seq};
        int longs = Math.multiplyExact(batch, seq);
        LongBuffer ids = inputBuffer(0, longs);
        LongBuffer mask = inputBuffer(1, longs);
        for (long[] row : tokenIds) {
            ids.put(row);
            for (int i = 0; i < seq; i++) {
                mask.put(1L);
            }
        }
        return Map.of("input_ids", OnnxTensor.createTensor(env, ids.flip(), shape),
                "attention_mask", OnnxTensor.createTensor(env, mask.flip(), shape),
                "token_type_ids", OnnxTensor.createTensor(env, inputBuffer(2, longs), shape)); // never written: zeros
    }

    /**
     * This thread's direct buffer {@code which} for the input tensors, at least {@code longs} long,
     * ready for {@code longs} values. ORT Java wraps a direct buffer without copying it; a heap
     * buffer it copies into a direct one that only a collection frees, outside every count. Tensors
     * are closed before the thread's next request.
     */
    private static LongBuffer inputBuffer(int which, int longs) {
        LongBuffer[] buffers = INPUT_BUFFERS.get();
        if (buffers[which] == null || buffers[which].capacity() < longs) {
            buffers[which] = ByteBuffer.allocateDirect(Math.multiplyExact(longs, Long.BYTES))
                    .order(ByteOrder.nativeOrder()).asLongBuffer();
        }
        return buffers[which].clear().limit(longs);
    }

    /** The mean of each row's token states. */
    private static float[][] meanPooled(OrtSession.Result result) throws OrtException {
        float[][][] hidden = (float[][][]) result.get(0).getValue();
        int seq = hidden[0].length;
        float[][] pooled = new float[hidden.length][hidden[0][0].length];
        for (int b = 0; b < hidden.length; b++) {
            for (float[] token : hidden[b]) {
                for (int d = 0; d < token.length; d++) {
                    pooled[b][d] += token[d] / seq;
                }
            }
        }
        return pooled;
    }

    /** {@return the budget requests are admitted against} */
    public MemoryBudget budget() {
        return budget;
    }

    /** {@return the plan cache, which only the settings other than {@code bounded} and {@code plain} plan through} */
    public Optional<PlanCache> plans() {
        return Optional.ofNullable(plans);
    }

    /** {@return one line: the lease cache and the split requests under {@code bounded}, the plan cache, or the batch cap} */
    public String cacheSummary() {
        if (plans == null && budgeted == null) {
            return rowsPerRun == 0 ? "no budget: every request run whole"
                    : "no budget: requests run in pieces of at most " + rowsPerRun + " rows";
        }
        if (budgeted == null) {
            PlanCache.Stats c = plans.stats();
            return String.format(Locale.ROOT, "plan cache: %d requests, hit rate %.2f, %d plans, %.1f ms planning in total",
                    c.requests(), c.hitRate(), c.size(), c.planTime().toNanos() / 1e6);
        }
        BudgetedOrtSession.LeaseCacheStats c = budgeted.leaseCacheStats();
        BudgetedOrtSession.SplitStats split = budgeted.splitStats();
        return String.format(Locale.ROOT, "lease cache: %d hits, %d misses, %d shapes; split %d requests into %d runs",
                c.hits(), c.misses(), c.shapes(), split.requests(), split.pieces());
    }

    /** {@return ONNX Runtime's figures for the session's CPU arena now} */
    public BoundedOrtArena.Stats arenaStats() {
        return BoundedOrtArena.Stats.of(session);
    }

    /** {@return the most bytes that leases of whole requests held at once, counted outside the budget} */
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
