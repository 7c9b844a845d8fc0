// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import dev.memplan.Admission.Reservation;
import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.PlanOptions;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxModelAccess;
import dev.memplan.ort.internal.NativeHeap;
import dev.memplan.ort.internal.OrtArenaPrediction;
import dev.memplan.ort.internal.OrtRuntimeProfile;
import dev.memplan.ort.internal.OrtUnavailable;
import dev.memplan.server.CompiledModel;
import dev.memplan.server.MemoryBudget;
import dev.memplan.server.MemoryNeed;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.internal.ServerAccess;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link CompiledModel} with a prediction of ONNX Runtime's CPU arena attached, for servers that
 * run their models in ONNX Runtime: each plan also carries the bytes ORT's arena is predicted to
 * hold for the request, and admission ({@link dev.memplan.Admission}, {@link MemoryBudget}) counts
 * those bytes instead of memplan's own peak.
 *
 * <pre>{@code
 * OrtModel model = OrtModel.compile(Path.of("all-minilm-l6-v2-q.onnx"));             // once
 * OrtModel.Plan plan = model.planForInputs(shapes);                                   // per request
 * try (MemoryBudget.Lease lease = budget.acquire(plan)) {                             // ORT's bytes
 *     session.run(inputs);
 * }
 * }</pre>
 *
 * <p>The compile reads and imports the model once for memplan's plan, and asks ONNX Runtime Java
 * (which must be on the class path), in a child JVM, for the graph ORT runs at the given level (a
 * model that crashes ORT there is refused, not fatal: docs/library.md); the predictor is
 * compiled on that graph (docs/design.md, section 13). The prediction holds at 1, 2 and 4 intra-op
 * threads (measured on every shared model: MLAS's per-thread buffers sit outside the arena).
 * Immutable and thread-safe.
 */
public final class OrtModel implements Reservation {

    /** ONNX Runtime's graph optimization levels, as {@code SessionOptions.OptLevel} names them. */
    public enum Level {
        /** {@code NO_OPT}: the graph as written. */
        NONE("NO_OPT"),
        /** {@code BASIC_OPT}: constant folding and redundant-node elimination. */
        BASIC("BASIC_OPT"),
        /** {@code EXTENDED_OPT}: also fusions into com.microsoft ops. */
        EXTENDED("EXTENDED_OPT"),
        /** {@code ALL_OPT}, ONNX Runtime's default: also layout rewrites (NCHWc on x86). */
        ALL("ALL_OPT");

        private final String ortName;

        Level(String ortName) {
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
        public static Level of(String name) {
            Objects.requireNonNull(name, "the level's name");
            for (Level level : values()) {
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

    /**
     * What a compile does when ONNX Runtime's graph of the model runs a kernel whose workspace
     * memplan has no rule for (docs/ort-runtime.md, section 5 lists the rules).
     */
    public enum UnmodelledKernels {
        /** Refuse the model, naming the kernels: memplan does not guess (the default). */
        REFUSE,
        /**
         * Predict such a kernel by an allowance, its inputs' and outputs' bytes live during it: a
         * guess, not a bound. Each {@link Plan#unmodelledOps()} names the kernels.
         */
        ALLOWANCE;

        /** {@return the name in lower case, as the command line's {@code --ort-unmodelled} takes it} */
        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final CompiledModel model;
    /** The model's import, which every prediction replays: read once, not per request. */
    private final ImportedGraph imported;
    private final Level level;
    private final OrtRuntimeProfile profile;
    /** The file ORT loads, which {@link ServerSize} measures a session of. */
    private final Path file;
    /** The input dims the model was compiled with, under each split's. */
    private final Map<String, List<String>> inputDims;
    private final UnmodelledKernels unmodelled;
    /** ORT's graph imported with each symbol split requests made, by the split's input dims. */
    private final Map<Map<String, List<String>>, OrtRuntimeProfile> splits = new ConcurrentHashMap<>();

    private OrtModel(CompiledModel model, Level level, OrtRuntimeProfile profile, Path file,
                     Map<String, List<String>> inputDims, UnmodelledKernels unmodelled) {
        this.model = model;
        this.file = file;
        this.imported = ServerAccess.access().imported(model);
        this.level = level;
        this.profile = profile;
        this.inputDims = inputDims;
        this.unmodelled = unmodelled;
    }

    /**
     * Compiles an ONNX file for ONNX Runtime at its default level (all), with the default import
     * and plan options.
     *
     * @param onnxFile the {@code .onnx} file the server's ORT session loads
     * @return the compiled model
     * @throws OrtUnavailableException when ONNX Runtime Java is not on the class path or cannot start
     * @throws dev.memplan.MemplanException with ORT's reason when ORT cannot load the model, naming
     *                                      the kernels whose workspace memplan has no rule for and
     *                                      could not measure
     */
    public static OrtModel compile(Path onnxFile) {
        return compile(onnxFile, ImportOptions.defaults(), PlanOptions.defaults(), Level.ALL);
    }

    /**
     * Compiles an ONNX file for ONNX Runtime at {@code level}: pass the level your sessions use.
     *
     * @param onnxFile      the {@code .onnx} file the server's ORT session loads
     * @param importOptions constant folding and view policy of memplan's own plan
     * @param planOptions   engine, strategy, alignment, graph inputs of memplan's own plan
     * @param level         the sessions' graph optimization level
     * @return the compiled model
     * @throws OrtUnavailableException when ONNX Runtime Java is not on the class path or cannot start
     * @throws dev.memplan.onnx.OnnxFormatException naming the file and element when the model is
     *                                              unreadable or malformed
     * @throws dev.memplan.MemplanException with ORT's reason when ORT cannot load the model, naming
     *                                      the kernels whose workspace memplan has no rule for and
     *                                      could not measure
     */
    public static OrtModel compile(Path onnxFile, ImportOptions importOptions, PlanOptions planOptions,
                                   Level level) {
        return compile(onnxFile, importOptions, planOptions, level, UnmodelledKernels.REFUSE);
    }

    /**
     * As {@link #compile(Path, ImportOptions, PlanOptions, Level)}, choosing what happens to a kernel
     * whose workspace memplan has no rule for.
     *
     * @param onnxFile      the {@code .onnx} file the server's ORT session loads
     * @param importOptions constant folding and view policy of memplan's own plan
     * @param planOptions   engine, strategy, alignment, graph inputs of memplan's own plan
     * @param level         the sessions' graph optimization level
     * @param unmodelled    refuse such a model (the other overloads), or predict it by an allowance
     * @return the compiled model
     * @throws OrtUnavailableException when ONNX Runtime Java is not on the class path or cannot start
     * @throws dev.memplan.MemplanException with ORT's reason when ORT cannot load the model; naming
     *                                      the kernels without a rule that could not be measured under
     *                                      {@code REFUSE}
     */
    public static OrtModel compile(Path onnxFile, ImportOptions importOptions, PlanOptions planOptions,
                                   Level level, UnmodelledKernels unmodelled) {
        Objects.requireNonNull(onnxFile, "the model's file");
        Objects.requireNonNull(level, "the ONNX Runtime level");
        Objects.requireNonNull(unmodelled, "what to do with kernels without a rule");
        OnnxModel read = OnnxModel.read(onnxFile);
        try {
            OrtRuntimeProfile profile;
            try { // fails before the import when ORT is absent
                profile = load(onnxFile, level, unmodelled, importOptions.inputDims());
            } catch (OrtUnavailable e) {
                throw new OrtUnavailableException(e.getMessage(), e);
            }
            return new OrtModel(CompiledModel.compile(read, importOptions, planOptions), level, profile, onnxFile,
                    importOptions.inputDims(), unmodelled);
        } finally {
            OnnxModelAccess.release(read); // its bytes now, not at a collection that may never come
            NativeHeap.releaseFreePages(); // and what the C library kept of the load's freed memory
        }
    }

    private static OrtRuntimeProfile load(Path file, Level level, UnmodelledKernels unmodelled,
                                          Map<String, List<String>> inputDims) {
        return OrtRuntimeProfile.load(file, level.ortName(), unmodelled == UnmodelledKernels.ALLOWANCE,
                "OrtModel.UnmodelledKernels.ALLOWANCE", inputDims);
    }

    /** {@return memplan's own compiled model, whose plans the prediction comes beside} */
    public CompiledModel model() {
        return model;
    }

    /** {@return the file the model was compiled from, which ORT loads} */
    Path file() {
        return file;
    }

    /** {@return the batch symbol whose rows ORT's graph keeps apart, or empty when requests run whole} */
    Optional<String> rowsApartBy() {
        return profile.batchRows().batch();
    }

    /**
     * The outputs' extents for a request, by ONNX name in the graph's order, as memplan's import
     * infers them from the input shapes; empty when one follows the data or the shapes do not bind.
     */
    Optional<Map<String, long[]>> outputShapes(Map<String, long[]> inputShapes) {
        Map<String, Long> bindings;
        try {
            bindings = imported.completeBindings(model.bindingsFor(inputShapes));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
        Graph graph = imported.graph();
        Map<String, long[]> shapes = new LinkedHashMap<>();
        for (int output : graph.outputs()) {
            List<Dim> dims = graph.value(output).shape().dims();
            long[] extents = new long[dims.size()];
            for (int d = 0; d < extents.length; d++) {
                OptionalLong extent = dims.get(d).evaluate(bindings);
                if (extent.isEmpty()) {
                    return Optional.empty();
                }
                extents[d] = extent.getAsLong();
            }
            shapes.put(imported.onnxName(output), extents);
        }
        return Optional.of(shapes);
    }

    /**
     * The op types whose ONNX Runtime kernel has no workspace rule in memplan and whose workspace
     * was therefore measured in ONNX Runtime when this model was compiled: each such node alone, at
     * six probe shapes, fitted exactly to its sizes (docs/ort-runtime.md).
     *
     * @return the op types, sorted; empty when every kernel has a rule
     */
    public Set<String> measuredOps() {
        return profile.measuredOps();
    }

    /** {@return the optimization level the prediction is for} */
    public Level level() {
        return level;
    }

    /**
     * Plans one request at {@code bindings}, as {@link CompiledModel#plan(Map)}, and predicts ORT's
     * arena for it.
     *
     * @param bindings symbol name to value
     * @return memplan's plan with ORT's predicted bytes (empty while the plan is deferred)
     * @throws dev.memplan.InvalidSizeException naming the value when a size overflows, or a value of
     *                                          ORT's graph whose size the bindings leave unknown
     * @throws dev.memplan.server.ModelLimitException naming the symbol when a binding is above its limit
     */
    public Plan plan(Map<String, Long> bindings) {
        return predicted(model.plan(bindings));
    }

    /**
     * Plans one request from its input shapes, as {@link CompiledModel#planForInputs(Map)}, and
     * predicts ORT's arena for it.
     *
     * @param inputShapes ONNX input name to the request's extents, one entry per graph input
     * @return memplan's plan with ORT's predicted bytes (empty while the plan is deferred)
     * @throws IllegalArgumentException naming the input when the shapes do not fit the model
     * @throws dev.memplan.onnx.BindingConflictException naming both dims when the shapes give one
     *                                                   symbol two sizes the graph needs equal
     */
    public Plan planForInputs(Map<String, long[]> inputShapes) {
        Optional<Map<String, List<String>>> split = ServerAccess.access().splitDims(model, inputShapes);
        OnnxPlan plan = model.planForInputs(inputShapes);
        return split.isEmpty() ? predicted(plan) : predicted(plan, splitProfile(split.get()));
    }

    /**
     * Plans one request from its input shapes and the values of its small integer inputs, as
     * {@link CompiledModel#planForInputs(Map, Map)} (a sample rate whose value picks an If branch),
     * and predicts ORT's arena for it, on ORT's graph with the branches those values take.
     *
     * @param inputShapes ONNX input name to the request's extents
     * @param inputValues ONNX input name to its elements, for inputs whose values the plan reads
     * @return memplan's plan with ORT's predicted bytes (empty while the plan is deferred)
     * @throws IllegalArgumentException naming the input when the shapes or values do not fit the model
     * @throws dev.memplan.onnx.BindingConflictException naming both dims when the shapes give one
     *                                                   symbol two sizes the graph needs equal
     */
    public Plan planForInputs(Map<String, long[]> inputShapes, Map<String, long[]> inputValues) {
        Optional<Map<String, List<String>>> split = ServerAccess.access().splitDims(model, inputShapes);
        OnnxPlan plan = model.planForInputs(inputShapes, inputValues);
        return split.isEmpty() ? predicted(plan) : predicted(plan, splitProfile(split.get()));
    }

    /** {@return the inputs whose values a plan reads: small integer inputs such as a sample rate} */
    Set<String> valueInputs() {
        return Set.copyOf(ServerAccess.access().imported(model).valueSymbols().keySet());
    }

    /**
     * ORT's graph imported with a split's input dims, loaded once per split: ORT runs such a request
     * as it runs any other, its graph sized by the split symbols.
     */
    private OrtRuntimeProfile splitProfile(Map<String, List<String>> splitDims) {
        Map<String, List<String>> all = new LinkedHashMap<>(inputDims);
        all.putAll(splitDims);
        return splits.computeIfAbsent(Map.copyOf(all), dims -> load(file, level, unmodelled, dims));
    }

    /**
     * ORT's prediction for a plan of {@link #model()} made elsewhere, for example by a
     * {@link dev.memplan.server.PlanCache} over it.
     *
     * @param plan a plan of this model's {@link CompiledModel}
     * @return the plan with ORT's predicted bytes (empty while the plan is deferred)
     * @throws IllegalArgumentException when the plan is of another model
     */
    public Plan predict(OnnxPlan plan) {
        ImportedGraph planned = ServerAccess.access().imported(plan);
        Map<String, List<String>> split = splitDims(planned);
        if (!split.isEmpty() && planned.name().equals(imported.name())) { // a plan of a split of this model
            return predicted(plan, splitProfile(split));
        }
        if (imported.forBindings(plan.bindings()) != planned) { // a decided If is the model's too
            throw new IllegalArgumentException("the plan is of " + planned.name() + ", not of "
                    + model.name() + "; plan it with this model or its PlanCache");
        }
        return predicted(plan);
    }

    /**
     * The dims of the inputs of a split's import that carry a split symbol (one this model cannot
     * bind), an unnamed dim as {@code ?}: what {@link #splitProfile} imports ORT's graph with.
     */
    private Map<String, List<String>> splitDims(ImportedGraph planned) {
        Map<String, List<String>> dims = new LinkedHashMap<>();
        Graph graph = planned.graph();
        for (int v : graph.inputs()) {
            List<String> named = new ArrayList<>();
            boolean split = false;
            for (Dim d : graph.value(v).shape().dims()) {
                if (d instanceof Dim.Symbol s) {
                    boolean fresh = planned.freshSymbols().containsKey(s.name());
                    split |= !fresh && !model.canBind(s.name());
                    named.add(fresh ? ImportOptions.UNNAMED_DIM : s.name());
                } else {
                    named.add(d.toString());
                }
            }
            if (split) {
                dims.put(graph.value(v).name(), named);
            }
        }
        return dims;
    }

    private Plan predicted(OnnxPlan plan) {
        return predicted(plan, profile);
    }

    private Plan predicted(OnnxPlan plan, OrtRuntimeProfile profile) {
        if (!plan.isComplete()) {
            return new Plan(plan, OptionalLong.empty(), OptionalLong.empty(), Set.of());
        }
        OrtArenaPrediction prediction = profile.predict(ServerAccess.access().imported(plan), plan.bindings());
        return new Plan(plan, OptionalLong.of(prediction.activationBytes()), OptionalLong.of(prediction.countedBytes()),
                prediction.unmodelledOps());
    }

    /**
     * ORT's predicted arena bytes at {@code bounds}, for {@link dev.memplan.Admission}.
     *
     * @param bounds upper bound of each symbol
     * @return the predicted bytes, or empty when a symbol is unbound
     */
    @Override
    public OptionalLong reservationBytes(Map<String, Long> bounds) {
        return predicted(ServerAccess.access().planUntraced(model, bounds)).predictedBytes();
    }

    @Override
    public Set<String> symbolNames() {
        return model.symbolNames();
    }

    @Override
    public OptionalLong limit(String symbol) {
        return model.limit(symbol);
    }

    @Override
    public String toString() {
        return model.name() + " for ONNX Runtime (level " + level + ")";
    }

    /**
     * One request's plan from an {@link OrtModel}: memplan's own plan, and the bytes ONNX Runtime's CPU
     * arena is predicted to hold for it, which is what a {@link MemoryBudget} leases.
     *
     * @param plan              memplan's plan of the request (offsets, peak, admission figure)
     * @param predictedBytes    ORT's predicted arena bytes for the request; empty while the plan is deferred
     * @param boundedArenaBytes what ORT is predicted to hold for the request under {@link BoundedOrtArena}
     *                          (no arena, memory patterns off): the peak of one run's blocks, tensor
     *                          by tensor, each at its own size with the allocator's header and page
     *                          tail; what {@link BudgetedOrtSession} leases. Empty while the plan is
     *                          deferred
     * @param unmodelledOps     op types whose ORT kernel workspace has no known rule, so an allowance stands
     *                          in for it in the prediction (only under {@link UnmodelledKernels#ALLOWANCE});
     *                          empty when every part is derived
     */
    public record Plan(OnnxPlan plan, OptionalLong predictedBytes, OptionalLong boundedArenaBytes,
                       Set<String> unmodelledOps) implements MemoryNeed {

        /**
         * Checks the parts.
         *
         * @param plan              memplan's plan
         * @param predictedBytes    the prediction, empty exactly when the plan is deferred
         * @param boundedArenaBytes the prediction under {@link BoundedOrtArena}, present exactly with
         *                          {@code predictedBytes}
         * @param unmodelledOps     op types the prediction has no rule for
         */
        public Plan {
            Objects.requireNonNull(plan, "plan");
            Objects.requireNonNull(predictedBytes, "predictedBytes");
            Objects.requireNonNull(boundedArenaBytes, "boundedArenaBytes");
            unmodelledOps = Set.copyOf(unmodelledOps);
            if (predictedBytes.isPresent() != plan.isComplete() || boundedArenaBytes.isPresent() != plan.isComplete()) {
                throw new IllegalArgumentException("a prediction is present exactly when the plan is complete");
            }
        }

        /**
         * What a {@link MemoryBudget} leases for this request: ONNX Runtime's predicted figure.
         *
         * @return {@link #predictedBytes()}
         * @throws IllegalArgumentException naming the symbols to bind when the plan is deferred
         */
        @Override
        public long neededBytes() {
            // empty exactly when memplan's plan is deferred, whose refusal names the symbols to bind
            return predictedBytes.isPresent() ? predictedBytes.getAsLong() : plan.neededBytes();
        }
    }
}
