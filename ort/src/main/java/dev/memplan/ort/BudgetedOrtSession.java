// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.memplan.ort.internal.NativeHeap;
import dev.memplan.ort.internal.OrtCApi;
import dev.memplan.server.MemoryBudget;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * One call that runs an ONNX Runtime session inside a {@link MemoryBudget}: the request's shapes
 * are read from its {@link OnnxTensor} inputs, the bytes ORT will hold for it predicted, leased,
 * the session run while the lease is held, the caller's reader given the result, and the lease released when the
 * result is closed (ORT's outputs live in its memory until then). A shape's lease, and whether it
 * runs whole or in pieces, is planned, predicted and decided once, then cached (at most
 * {@value #MAX_CACHED_SHAPES} shapes; Caffeine, which this class needs on the class path): a request
 * of a known shape costs a lookup and a lease before ORT runs. Thread-safe as the session is.
 *
 * <pre>{@code
 * BoundedOrtArena arena = BoundedOrtArena.install().keepFreedBlocksUpTo(budget.leasableBytes());
 * OrtSession session = env.createSession(path, arena.configure(new OrtSession.SessionOptions()));
 * BudgetedOrtSession budgeted = BudgetedOrtSession.of(session, ortModel, budget);
 * Optional<float[][][]> out = budgeted.run(inputs, Duration.ofSeconds(10),
 *         result -> (float[][][]) result.get(0).getValue());   // empty: no room in time
 * }</pre>
 */
public final class BudgetedOrtSession {
    /**
     * Reads what the caller needs from a result while its lease is held.
     *
     * @param <T> what is read
     */
    @FunctionalInterface
    public interface ResultReader<T> {
        /**
         * @param result the run's outputs; closed after this returns, and their memory given back
         *               (of a request run in pieces, too: no buffer of an output, such as
         *               {@code OnnxTensor.getBufferRef()}'s, may be kept past this call)
         * @return what the caller keeps (copied out of ORT's buffers)
         * @throws OrtException when reading an output fails
         */
        T read(OrtSession.Result result) throws OrtException;
    }

    /** The most request shapes whose lease is kept: a server sees far fewer distinct shapes. */
    static final long MAX_CACHED_SHAPES = 4096;

    private final OrtSession session;
    private final Map<String, NodeInfo> inputInfo;
    private final Map<String, NodeInfo> outputInfo;
    /** The inputs whose values the model's plan reads (a sample rate picking an If branch). */
    private final Set<String> valueInputs;
    private final OrtModel model;
    private final MemoryBudget budget;
    /** ORT's predicted bytes under the bounded arena by request ({@link RequestShape#key}), pieces too: planned and predicted once each. */
    private final Cache<String, Long> predictions;
    /** How a request runs and what it leases, by this copy's settings and the input shapes: decided once each. */
    private final Cache<String, RunShape> runs;
    private final LongAdder splitRequests;
    private final LongAdder piecesRun;
    /** Runs the budget should hold at once: a request past its share of the budget runs in pieces. */
    private final int runsInFlight;
    /**
     * Lets at most {@link #runsInFlight} requests run at once, first come first served, when set
     * by {@link #withRunsInFlight}; null for the session {@link #of} returns, which admits by the
     * budget alone.
     */
    private final Semaphore runSlots;
    /** The most rows one ORT run takes, or 0 for as many as the share holds. */
    private final int rowsPerRun;
    /** This copy's settings, before a request's key in {@link #runs}: copies share the cache. */
    private final String runKeyPrefix;

    /**
     * How requests of one shape run: whole, or in pieces of {@code pieceRows} rows by {@code layout},
     * under one lease of {@code leaseBytes}.
     */
    private record RunShape(long leaseBytes, RowLayout layout, long pieceRows) {
        static RunShape whole(long bytes) {
            return new RunShape(bytes, null, 0);
        }
    }

    private BudgetedOrtSession(OrtSession session, Map<String, NodeInfo> inputInfo, Map<String, NodeInfo> outputInfo,
                               OrtModel model, MemoryBudget budget) {
        this.session = session;
        this.inputInfo = inputInfo;
        this.outputInfo = outputInfo;
        this.model = Objects.requireNonNull(model, "model");
        this.valueInputs = model.valueInputs();
        this.budget = Objects.requireNonNull(budget, "budget");
        this.predictions = Caffeine.newBuilder().maximumSize(MAX_CACHED_SHAPES).build();
        this.runs = Caffeine.newBuilder().maximumSize(MAX_CACHED_SHAPES).recordStats().build();
        this.splitRequests = new LongAdder();
        this.piecesRun = new LongAdder();
        this.runsInFlight = 1;
        this.runSlots = null;
        this.rowsPerRun = 0;
        this.runKeyPrefix = settingsKey(runsInFlight, rowsPerRun);
    }

    private BudgetedOrtSession(BudgetedOrtSession other, int runsInFlight, Semaphore runSlots, int rowsPerRun) {
        this.session = other.session;
        this.inputInfo = other.inputInfo;
        this.outputInfo = other.outputInfo;
        this.valueInputs = other.valueInputs;
        this.model = other.model;
        this.budget = other.budget;
        this.predictions = other.predictions;
        this.runs = other.runs;
        this.splitRequests = other.splitRequests;
        this.piecesRun = other.piecesRun;
        this.runsInFlight = runsInFlight;
        this.runSlots = runSlots;
        this.rowsPerRun = rowsPerRun;
        this.runKeyPrefix = settingsKey(runsInFlight, rowsPerRun);
    }

    /**
     * A session run inside a budget. The session's creation leaves memory it freed in the C
     * library's heap (tens of MiB for a model of 130 MB): it is given back to the system here, so that
     * the process starts serving from what the session and the model hold.
     *
     * @param session the session, created on the model's file with the settings the prediction is for
     *                ({@link BoundedOrtArena#configure})
     * @param model   the model compiled for ORT, whose predictions the leases hold
     * @param budget  the budget requests are admitted against
     * @return the budgeted session
     * @throws IllegalArgumentException when the session was not created with
     *                                  {@link BoundedOrtArena#configure}: ORT's own arena would keep
     *                                  what it grew to, outside every lease
     */
    public static BudgetedOrtSession of(OrtSession session, OrtModel model, MemoryBudget budget) {
        Objects.requireNonNull(session, "session");
        if (!OrtCApi.usesCountingAllocator(session)) {
            throw new IllegalArgumentException("the session uses ONNX Runtime's own arena, which keeps what it grows"
                    + " to outside the budget; create it with env.createSession(path,"
                    + " BoundedOrtArena.install().configure(new OrtSession.SessionOptions()))");
        }
        Map<String, NodeInfo> inputs;
        Map<String, NodeInfo> outputs;
        try {
            inputs = session.getInputInfo();
            outputs = session.getOutputInfo();
        } catch (OrtException e) {
            throw new IllegalArgumentException("ONNX Runtime cannot describe the session's inputs and outputs ("
                    + e.getMessage() + "); give an open session", e);
        }
        NativeHeap.releaseFreePages();
        return new BudgetedOrtSession(session, inputs, outputs, model, budget);
    }

    /**
     * This session, running {@code runs} requests at once: a request whose lease passes
     * {@code 1 / runs} of what the budget leases runs in pieces of its rows within that share (where
     * ORT's graph keeps the rows apart and one row fits the share), so that one large request does
     * not hold the whole budget while cores wait; and at most {@code runs} requests run at once,
     * the others waiting first come first served (within their timeout) before they lease. More
     * runs than cores only share the cores, while each holds its lease: the budget then has no
     * room left to keep freed blocks, and runs fault their pages afresh. Give it the cores over
     * ORT's intra-op threads per run. The session {@link #of} returns splits only what the whole
     * budget cannot hold and admits by the budget alone. The copy shares this one's lease cache
     * and figures, and its {@link #withRowsPerRun} copies share its limit.
     *
     * @param runs runs at once, at least 1
     * @return a session splitting for {@code runs}
     * @throws IllegalArgumentException when {@code runs} is below 1
     */
    public BudgetedOrtSession withRunsInFlight(int runs) {
        if (runs < 1) {
            throw new IllegalArgumentException("runs in flight must be at least 1, not " + runs);
        }
        return new BudgetedOrtSession(this, runs, new Semaphore(runs, true), rowsPerRun);
    }

    /**
     * This session, running at most {@code rows} rows of a request in one ORT run (where ORT's graph
     * keeps the rows apart), one run after another under the request's one lease. Smaller runs
     * hold less and, on CPU, often run faster: on 2 cores, MiniLM int8 and bge-small fp32 served
     * 0.86x-1.68x plain ORT's tokens per second one row at a time, geomean 1.22 (docs/performance.md,
     * with {@link #withRunsInFlight}). The default takes as many rows as the request's share of
     * the budget holds. The copy shares this one's lease cache and figures.
     *
     * @param rows rows per run, at least 1
     * @return a session running at most {@code rows} rows at a time
     * @throws IllegalArgumentException when {@code rows} is below 1
     */
    public BudgetedOrtSession withRowsPerRun(int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("rows per run must be at least 1, not " + rows);
        }
        return new BudgetedOrtSession(this, runsInFlight, runSlots, rows);
    }

    /**
     * The bytes {@link #run} leases for a request with these inputs, from the shape's cached
     * decision: what ORT is predicted to hold for the whole request under {@link BoundedOrtArena}
     * ({@link OrtModel.Plan#boundedArenaBytes()}), or, for a request run in pieces,
     * the largest piece's and the joined outputs'.
     *
     * @param inputs input name to tensor, every input of the model
     * @return the request's lease
     * @throws IllegalArgumentException naming the input or symbol when the shapes do not bind the model
     * @throws dev.memplan.server.BudgetExceededException when one row of the request needs more than
     *                                  the budget can ever grant
     */
    public long leaseBytes(Map<String, OnnxTensor> inputs) {
        return runShapeOf(RequestShape.of(inputs, valueInputs)).leaseBytes();
    }

    private static String settingsKey(int runsInFlight, int rowsPerRun) {
        return runsInFlight + "/" + rowsPerRun + "/";
    }

    /** How a request of these shapes and values runs under this copy's settings: cached per key. */
    private RunShape runShapeOf(RequestShape request) {
        return runs.get(runKeyPrefix + request.key(), key -> decide(request));
    }

    private long leaseOf(RequestShape request) {
        return predictions.get(request.key(), key -> predictedBytes(request));
    }

    /** The lease of a piece of a request's rows. */
    private long leaseOf(Map<String, long[]> pieceShapes) {
        return leaseOf(RequestShape.ofShapes(pieceShapes));
    }

    private long predictedBytes(RequestShape request) {
        OptionalLong bytes = (request.values().isEmpty() ? model.planForInputs(request.shapes())
                : model.planForInputs(request.shapes(), request.values())).boundedArenaBytes();
        if (bytes.isEmpty()) {
            throw new IllegalArgumentException("the inputs leave symbols of " + model.model().symbols()
                    + " unbound; give every input of the model");
        }
        return bytes.getAsLong();
    }

    /**
     * Runs one request inside the budget: wait for a run slot where {@link #withRunsInFlight} set
     * them, lease its predicted bytes (waiting at most {@code timeout} for both, first come first
     * served), run, read, release. A request larger than the budget
     * (or than its share, {@link #withRunsInFlight}) whose rows fit a few at a time runs in pieces of
     * its rows under one lease, when ORT's graph keeps the rows apart; the reader sees the joined
     * outputs as one result.
     *
     * @param inputs  input name to tensor, every input of the model
     * @param timeout how long to wait for room
     * @param reader  reads the outputs while the lease is held
     * @param <T>     what is read
     * @return what the reader returned, or empty when there was no run slot or no room within {@code timeout}
     * @throws OrtException             when ONNX Runtime fails to run or the reader fails
     * @throws InterruptedException     when interrupted while waiting (nothing is held)
     * @throws dev.memplan.server.BudgetExceededException when one row of the request needs more than the
     *                                  budget can ever grant, or the whole request does and the model's
     *                                  graph does not keep its rows apart
     * @throws IllegalArgumentException naming the input or symbol when the shapes do not bind the model
     */
    public <T> Optional<T> run(Map<String, OnnxTensor> inputs, Duration timeout, ResultReader<T> reader)
            throws OrtException, InterruptedException {
        Objects.requireNonNull(reader, "reader");
        RunShape shape = runShapeOf(RequestShape.of(inputs, valueInputs));
        long deadline = System.nanoTime() + timeout.toNanos();
        if (runSlots != null && !runSlots.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return Optional.empty();
        }
        try {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            Optional<MemoryBudget.Lease> lease = budget.tryAcquire(shape.leaseBytes(), left); // refuses what never fits
            if (lease.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(runLeased(lease.get(), shape, inputs, reader));
        } finally {
            if (runSlots != null) {
                runSlots.release();
            }
        }
    }

    /** Runs a request under its lease, whole or in pieces, and releases the lease. */
    private <T> T runLeased(MemoryBudget.Lease lease, RunShape shape, Map<String, OnnxTensor> inputs,
                            ResultReader<T> reader) throws OrtException {
        try (MemoryBudget.Lease held = lease) {
            if (shape.layout() == null) {
                try (OrtSession.Result result = session.run(inputs)) {
                    return reader.read(result);
                }
            }
            RowPieces pieces = new RowPieces(session, shape.layout(), inputs);
            try (OrtSession.Result result = pieces.run(shape.pieceRows())) {
                splitRequests.increment();
                piecesRun.add((shape.layout().rows() + shape.pieceRows() - 1) / shape.pieceRows());
                return reader.read(result);
            } finally {
                pieces.release(); // the joined outputs go back with the lease that counted them
            }
        }
    }

    /**
     * How requests of these shapes run: whole, unless the whole passes the request's share of the
     * budget (or the whole budget, where one row and the joined outputs pass the share) or has
     * more rows than a run takes, and ORT's graph keeps its rows apart. Pieces are as large as
     * the limit holds, at most the rows per run; the lease is the largest piece's and the joined
     * outputs'.
     *
     * @throws dev.memplan.server.BudgetExceededException when one row does not fit the budget
     */
    private RunShape decide(RequestShape request) {
        long bytes = leaseOf(request);
        long leasable = budget.leasableBytes();
        long share = leasable / runsInFlight;
        if (bytes <= share && rowsPerRun == 0 || !request.values().isEmpty()) { // a plan read from values: whole
            return RunShape.whole(bytes);
        }
        Map<String, long[]> shapes = request.shapes();
        Optional<RowLayout> found = RowLayout.of(model, inputInfo, outputInfo, shapes); // empty for one row
        if (found.isEmpty()) {
            return RunShape.whole(bytes);
        }
        RowLayout layout = found.get();
        long limit = leaseOf(layout.shapesOf(shapes, 1)) + layout.joinedBytes() <= share ? share : leasable;
        boolean pastLimit = bytes > limit;
        if (!pastLimit && (rowsPerRun == 0 || layout.rows() <= rowsPerRun)) {
            return RunShape.whole(bytes);
        }
        long perPiece = pastLimit ? layout.rowsPerPiece(shapes, this::leaseOf, limit) : layout.rows();
        if (rowsPerRun > 0) {
            perPiece = Math.min(perPiece, rowsPerRun);
        }
        long last = layout.rows() % perPiece;
        long leased = Math.max(leaseOf(layout.shapesOf(shapes, perPiece)),
                last == 0 ? 0 : leaseOf(layout.shapesOf(shapes, last))) + layout.joinedBytes();
        return new RunShape(leased, layout, perPiece);
    }

    /**
     * How many requests ran in pieces of their rows because the whole needed more than the budget
     * leases.
     *
     * @param requests requests split
     * @param pieces   ORT runs they took in all
     */
    public record SplitStats(long requests, long pieces) {
    }

    /** {@return the requests split so far, and their pieces} */
    public SplitStats splitStats() {
        return new SplitStats(splitRequests.sum(), piecesRun.sum());
    }

    /**
     * How the lease cache served the requests so far: a miss planned, predicted and decided the
     * shape (once for each of this session's {@link #withRunsInFlight} and {@link #withRowsPerRun}
     * copies, which share the cache).
     *
     * @param hits   requests whose lease was cached
     * @param misses requests whose lease was computed
     * @param shapes shapes cached now
     */
    public record LeaseCacheStats(long hits, long misses, long shapes) {
    }

    /** {@return the lease cache's figures now} */
    public LeaseCacheStats leaseCacheStats() {
        var s = runs.stats();
        return new LeaseCacheStats(s.hitCount(), s.missCount(), runs.estimatedSize());
    }

    /** {@return the budget requests are admitted against} */
    public MemoryBudget budget() {
        return budget;
    }
}
