// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import dev.memplan.Admission.Reservation;
import dev.memplan.InvalidSizeException;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.Schedule;
import dev.memplan.Shape;
import dev.memplan.onnx.BindingConflictException;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.imports.ControlFlowNode;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.onnx.imports.OnnxModelAccess;
import dev.memplan.server.internal.ServerAccess;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * An ONNX model compiled once for serving: read, imported (shape inference, constant folding,
 * views) and compiled into a {@link Schedule}, with every If/Loop/Scan body compiled the same way.
 * Per request, {@link #plan(Map)} or {@link #planForInputs(Map)} only computes sizes and allocates:
 * no graph walk, no re-import.
 *
 * <pre>{@code
 * CompiledModel model = CompiledModel.compile(Path.of("all-minilm-l6-v2-q.onnx"));   // once
 * OnnxPlan plan = model.planForInputs(Map.of("input_ids", new long[] {4, 512},       // per request
 *         "attention_mask", new long[] {4, 512}, "token_type_ids", new long[] {4, 512}));
 * long arena = plan.plan().peakBytes();           // one arena; plan.plan().offsetOf(valueId) places each tensor
 * long reserve = plan.admissionBytes().orElseThrow(); // plus control-flow transient need
 * }</pre>
 *
 * <p>A server that runs the model in ONNX Runtime and admits by ORT's arena attaches ORT's
 * prediction with the {@code memplan-ort} module's {@code OrtModel}.
 *
 * <p>Immutable and thread-safe: any number of threads may plan on one instance at once. Each
 * compile and each plan is recorded as a JDK Flight Recorder event ({@code dev.memplan.Compile},
 * {@code dev.memplan.Plan}) when a recording enables them.
 */
public final class CompiledModel implements Reservation {
    static {
        // what memplan-ort and the command line need beyond the public API (ServerAccess)
        ServerAccess.install(new ServerAccess.Access() {
            @Override
            public CompiledModel compile(ImportedGraph imported, PlanOptions planOptions) {
                return CompiledModel.compile(imported, planOptions);
            }

            @Override
            public ImportedGraph imported(CompiledModel model) {
                return model.imported();
            }

            @Override
            public ImportedGraph imported(OnnxPlan plan) {
                return plan.imported();
            }

            @Override
            public ControlFlowNode node(OnnxPlan.NodeNeed need) {
                return need.node();
            }

            @Override
            public OnnxPlan planUntraced(CompiledModel model, Map<String, Long> bindings) {
                model.checkBindings(bindings);
                return model.planUntraced(bindings);
            }

            @Override
            public Optional<Map<String, List<String>>> splitDims(CompiledModel model, Map<String, long[]> inputShapes) {
                SymbolSplit split = model.splitFor(inputShapes);
                return split == null ? Optional.empty() : Optional.of(split.inputDims());
            }
        });
    }

    private final String name;
    private final ImportedGraph imported;
    private final PlanOptions options;
    private final Schedule schedule;
    private final OwnerSizes ownerSizes;
    private final InputBinder binder;
    private final List<CompiledControlFlow> controlFlow;
    private final List<String> symbols;
    /** What a binding may name (see {@link #bindable}); anything else is refused. */
    private final Set<String> bindable;
    private final SymbolLimits limits;
    /** Branch selection: this model compiled again per set of If decisions a request's bindings make. */
    private final Map<ImportedGraph, CompiledModel> specialized = new ConcurrentHashMap<>();
    /**
     * Imports the model again with these input dims; null when compiled from an import (no model
     * to read), or when no symbol names two input dims (no request can need a split).
     */
    private final Function<Map<String, List<String>>, ImportedGraph> reimport;
    /** This model compiled again per {@link SymbolSplit}, by its input dims. */
    private final Map<Map<String, List<String>>, SplitModel> splits = new ConcurrentHashMap<>();

    private static final System.Logger LOG = System.getLogger("dev.memplan");

    /** One If/Loop/Scan node with its bodies compiled. */
    private record CompiledControlFlow(ControlFlowNode node, Map<String, CompiledModel> bodies) {
    }

    private CompiledModel(String name, ImportedGraph imported, PlanOptions options) {
        this(name, imported, options, null);
    }

    private CompiledModel(String name, ImportedGraph imported, PlanOptions options,
                          Function<Map<String, List<String>>, ImportedGraph> reimport) {
        this.name = name;
        this.imported = imported;
        this.options = options;
        this.schedule = MemPlan.compile(imported.graph(), imported.views(), options);
        this.ownerSizes = new OwnerSizes(schedule);
        this.binder = new InputBinder(imported.graph());
        List<CompiledControlFlow> cfs = new ArrayList<>();
        for (ControlFlowNode cf : imported.controlFlow()) {
            Map<String, CompiledModel> bodies = new LinkedHashMap<>();
            for (ControlFlowNode.Body body : cf.bodies()) {
                // a body's inputs (outer values, loop state) are owned outside it: never count them twice
                bodies.put(body.attribute(), new CompiledModel(name + "/" + cf.nodeName() + "." + body.attribute(),
                        body.graph(), options.withIncludeGraphInputs(false)));
            }
            cfs.add(new CompiledControlFlow(cf, Collections.unmodifiableMap(bodies)));
        }
        this.controlFlow = List.copyOf(cfs);
        this.symbols = List.copyOf(imported.symbols().keySet());
        this.bindable = bindable(imported, symbols, binder.inputs());
        this.limits = new SymbolLimits(imported.relations());
        this.reimport = SymbolSplit.possible(binder.inputs()) ? reimport : null;
    }

    /**
     * Reads, imports and compiles an ONNX file with the default import and plan options.
     *
     * @param onnxFile the {@code .onnx} file
     * @return the compiled model
     * @throws dev.memplan.onnx.OnnxFormatException naming the file and element when the model is
     *                                              unreadable or malformed
     */
    public static CompiledModel compile(Path onnxFile) {
        return compile(onnxFile, ImportOptions.defaults(), PlanOptions.defaults());
    }

    /**
     * Reads, imports and compiles an ONNX file.
     *
     * @param onnxFile      the {@code .onnx} file
     * @param importOptions constant folding and view policy
     * @param planOptions   engine, strategy, alignment, graph inputs
     * @return the compiled model
     * @throws dev.memplan.onnx.OnnxFormatException naming the file and element when the model is
     *                                              unreadable or malformed
     */
    public static CompiledModel compile(Path onnxFile, ImportOptions importOptions, PlanOptions planOptions) {
        OnnxModel model = OnnxModel.read(onnxFile);
        try {
            return compile(model, importOptions, planOptions);
        } finally {
            OnnxModelAccess.release(model); // its bytes now, not at a collection that may never come
        }
    }

    /**
     * Imports and compiles a model already read.
     *
     * @param model         the model
     * @param importOptions constant folding and view policy
     * @param planOptions   engine, strategy, alignment, graph inputs
     * @return the compiled model
     * @throws dev.memplan.onnx.OnnxFormatException naming the element when the graph is malformed
     */
    public static CompiledModel compile(OnnxModel model, ImportOptions importOptions, PlanOptions planOptions) {
        CompileEvent event = new CompileEvent();
        event.begin();
        Supplier<OnnxModel> again = OnnxModelAccess.again(model); // a path, not the bytes, for a model read from a file
        Function<Map<String, List<String>>, ImportedGraph> reimport = dims -> {
            Map<String, List<String>> all = new LinkedHashMap<>(importOptions.inputDims());
            all.putAll(dims);
            return OnnxModelAccess.withModelAgain(again, model,
                    read -> OnnxImporter.importModel(read, importOptions.withInputDims(all)));
        };
        CompiledModel compiled = new CompiledModel(model.source(), OnnxImporter.importModel(model, importOptions),
                planOptions, reimport);
        compiled.commit(event);
        return compiled;
    }

    /**
     * Compiles a graph already imported.
     *
     * @param imported    the import
     * @param planOptions engine, strategy, alignment, graph inputs
     * @return the compiled model
     * @throws dev.memplan.InvalidGraphException naming the value when the views are invalid
     */
    static CompiledModel compile(ImportedGraph imported, PlanOptions planOptions) {
        CompileEvent event = new CompileEvent();
        event.begin();
        CompiledModel compiled = new CompiledModel(imported.name(), imported, planOptions);
        compiled.commit(event);
        return compiled;
    }

    private void commit(CompileEvent event) {
        event.end();
        if (event.shouldCommit()) {
            event.model = name;
            event.engine = engine();
            event.nodes = imported.graph().nodeCount();
            event.owners = schedule.numOwners();
            event.symbols = String.join(",", symbols);
            event.controlFlowNodes = controlFlow.size();
            event.commit();
        }
    }

    /**
     * The model's name: its file (or the source given to {@link OnnxModel#read(String, byte[])}).
     *
     * @return the name, as JFR events report it
     */
    public String name() {
        return name;
    }

    /**
     * The import: graph, views, weights, control flow, what shape inference found.
     *
     * @return the imported graph
     */
    ImportedGraph imported() {
        return imported;
    }

    /**
     * The outer graph's compiled schedule, for {@link Schedule#plan(long[])} with sizes of your own.
     *
     * @return the schedule
     */
    public Schedule schedule() {
        return schedule;
    }

    /**
     * The options every plan of this model uses.
     *
     * @return the plan options
     */
    public PlanOptions options() {
        return options;
    }

    /**
     * The engine that compiled and plans: {@code "native"} or {@code "java"}.
     *
     * @return the engine name
     */
    public String engine() {
        return schedule.engine();
    }

    /**
     * The symbols a request binds, in first-use order, including those only control-flow bodies use.
     *
     * @return symbol names
     */
    public List<String> symbols() {
        return symbols;
    }

    /**
     * The graph inputs a request feeds (initializers excluded), with their declared shapes.
     *
     * @return ONNX input name to declared shape, in graph order
     */
    public Map<String, Shape> inputs() {
        return binder.inputs();
    }

    /**
     * The symbol bindings that a request's input shapes imply, from the inputs' declared shapes:
     * {@code input_ids -> [4, 512]} against {@code [batch_size, sequence_length]} binds both.
     * Inputs may be left out when the others bind their symbols.
     *
     * @param inputShapes ONNX input name to the request's extents
     * @return symbol name to value
     * @throws IllegalArgumentException naming the input and dim when an input is unknown, its rank
     *                                  differs, an extent is negative or disagrees with a static dim,
     *                                  or two inputs give one symbol different values
     */
    public Map<String, Long> bindingsFor(Map<String, long[]> inputShapes) {
        return binder.bind(inputShapes);
    }

    /**
     * Plans one request from its input shapes: {@link #bindingsFor} then {@link #plan(Map)}. Every
     * input of {@link #inputs()} must be given, as ONNX Runtime requires.
     *
     * <p>Shapes that give one symbol different sizes on different input dims (an export that named
     * {@code [batch, sequence]} {@code [batch, batch]}) are planned as ONNX Runtime runs them, with
     * the symbol split: each group of dims the request sizes apart takes its own symbol,
     * {@code <symbol>@<input>.<dim>} after its first dim ({@code batch@input_ids.1}). The model is
     * imported and compiled again once per such split, which is logged once, on one line, at
     * WARNING on the {@code dev.memplan} logger. A model compiled from an import plans no split.
     *
     * @param inputShapes ONNX input name to the request's extents, one entry per graph input
     * @return the plan; deferred (see {@link OnnxPlan#unboundSymbols()}) when the shapes leave a
     *         symbol unbound
     * @throws IllegalArgumentException naming the input and dim when an input is missing or unknown,
     *                                  or its shape does not match its declaration
     * @throws ModelLimitException naming the symbol when a shape is above the model's limit
     *                             ({@link #limits()}), for example MiniLM at more than 512 tokens
     * @throws dev.memplan.onnx.BindingConflictException naming the node when the shapes contradict a
     *                                                   relation of the model, such as one that needs
     *                                                   a split symbol's dims equal (naming both dims)
     * @throws InvalidSizeException naming the value when a size overflows
     */
    public OnnxPlan planForInputs(Map<String, long[]> inputShapes) {
        SymbolSplit split = splitFor(inputShapes);
        if (split != null) {
            return inSplit(split, inputShapes, model -> model.planForInputs(inputShapes));
        }
        Map<String, Long> bindings = bindingsFor(inputShapes);
        requireEveryInput(inputShapes);
        return plan(bindings);
    }

    /**
     * The split a request's shapes need when they give one symbol of the inputs different sizes,
     * or null: none needed, or this model cannot be imported again (compiled from an import).
     */
    private SymbolSplit splitFor(Map<String, long[]> inputShapes) {
        if (reimport == null || inputShapes == null) {
            return null;
        }
        return SymbolSplit.find(binder.inputs(), imported.freshSymbols().keySet(), bindable, inputShapes);
    }

    /**
     * Plans in this model compiled with {@code split}: compiled once per split and announced then
     * (one line, logged at WARNING on {@code dev.memplan}). A graph that needs the split dims equal
     * (its relations make the new symbol the old one again) refuses the request, naming the symbol,
     * both dims and the node, as does a relation the split sizes break.
     */
    private OnnxPlan inSplit(SymbolSplit split, Map<String, long[]> inputShapes,
                             Function<CompiledModel, OnnxPlan> plan) {
        SplitModel model = splits.computeIfAbsent(split.inputDims(), dims -> {
            CompileEvent event = new CompileEvent();
            event.begin();
            CompiledModel compiled = new CompiledModel(name, reimport.apply(dims), options);
            compiled.commit(event);
            String undone = split.undone(compiled.imported, compiled.inputs(), inputShapes);
            if (undone == null) {
                LOG.log(System.Logger.Level.WARNING, split.notice(name));
            }
            return new SplitModel(compiled, undone);
        });
        if (model.undone() != null) {
            throw new BindingConflictException(split.contradiction() + "; the model needs them equal: "
                    + model.undone() + "; give both dims the same size");
        }
        try {
            return plan.apply(model.model());
        } catch (BindingConflictException e) {
            if (e instanceof ModelLimitException || !split.mentionedIn(e.getMessage())) {
                throw e;
            }
            throw new BindingConflictException(split.contradiction() + "; the model needs them equal: "
                    + e.getMessage());
        }
    }

    /** This model compiled with a split; {@code undone} says why the graph makes the split symbols one again. */
    private record SplitModel(CompiledModel model, String undone) {
    }

    /**
     * Plans one request from its input shapes and the values of small integer inputs
     * ({@link ImportedGraph#valueSymbols()}), such as a sample rate that selects an If branch.
     *
     * @param inputShapes ONNX input name to the request's extents
     * @param inputValues ONNX input name to its elements
     * @return the plan; deferred when the shapes and values leave a symbol unbound
     * @throws IllegalArgumentException naming the input when the shapes or values do not fit the model
     */
    public OnnxPlan planForInputs(Map<String, long[]> inputShapes, Map<String, long[]> inputValues) {
        SymbolSplit split = splitFor(inputShapes);
        if (split != null) {
            return inSplit(split, inputShapes, model -> model.planForInputs(inputShapes, inputValues));
        }
        Map<String, Long> bindings = new HashMap<>(bindingsFor(inputShapes));
        Set<String> given = new HashSet<>(inputShapes.keySet());
        given.addAll(inputValues.keySet()); // an input given by its values needs no separate shape
        binder.requireEvery(given);
        imported.valueBindings(inputValues).forEach((k, v) -> {
            Long before = bindings.putIfAbsent(k, v);
            if (before != null && !before.equals(v)) {
                throw new IllegalArgumentException("symbol '" + k + "' is " + before + " from the input shapes but "
                        + v + " from the input values; they disagree");
            }
        });
        return plan(bindings);
    }

    /**
     * Plans one request at {@code bindings}: owner sizes, then the engine's allocation, for the
     * outer graph and every control-flow body.
     *
     * @param bindings symbol name to value (>= 0); symbols the model derives from others may be
     *                 left out (see {@link ImportedGraph#derivedSymbols()})
     * @return the plan, made at the completed bindings; deferred, never guessed, when a size is
     *         unknown
     * @throws InvalidSizeException naming the symbol when a binding is negative, or the
     *                                          value when a size overflows or a dim evaluates negative
     * @throws IllegalArgumentException naming the symbol and the model's symbols when a binding
     *                                  names a symbol the model does not have
     * @throws NullPointerException naming what is null: the map, a symbol name or a value
     * @throws ModelLimitException naming the symbol when a binding is above its {@link #limits()}
     * @throws dev.memplan.onnx.BindingConflictException naming the node when a binding contradicts
     *                                                   a relation of the model (the family of
     *                                                   {@link ModelLimitException})
     */
    public OnnxPlan plan(Map<String, Long> bindings) {
        checkBindings(bindings);
        PlanEvent event = new PlanEvent();
        event.begin();
        OnnxPlan plan = planUntraced(bindings);
        PlanEvents.commit(event, this, plan, false, false);
        return plan;
    }

    /** {@link #plan(Map)} without its JFR event, for callers that record their own. */
    OnnxPlan planUntraced(Map<String, Long> bindings) {
        limits.check(bindings);
        // the symbols the model derives from others (total_seq_len = past_seq_len + seq_len) need no binding
        Map<String, Long> frozen = Map.copyOf(imported.completeBindings(bindings));
        ImportedGraph decided = imported.forBindings(frozen); // If conditions the bindings decide
        if (decided != imported) {
            return specialized.computeIfAbsent(decided, g -> new CompiledModel(name, g, options))
                    .planUntraced(bindings);
        }
        long[] sizes = new long[ownerSizes.count()];
        List<Integer> unknown = ownerSizes.fill(frozen, sizes);
        PlanResult result = unknown.isEmpty() ? new PlanResult.Complete(schedule.plan(sizes))
                : new PlanResult.Deferred(unknown);
        List<OnnxPlan.NodeNeed> needs = new ArrayList<>(controlFlow.size());
        for (CompiledControlFlow cf : controlFlow) {
            Map<String, OnnxPlan> bodyPlans = new LinkedHashMap<>();
            OptionalLong need = OptionalLong.of(0);
            for (Map.Entry<String, CompiledModel> body : cf.bodies().entrySet()) {
                OnnxPlan bodyPlan = body.getValue().planUntraced(frozen);
                bodyPlans.put(body.getKey(), bodyPlan);
                OptionalLong p = bodyPlan.admissionBytes();
                need = need.isEmpty() || p.isEmpty() ? OptionalLong.empty()
                        : OptionalLong.of(Math.max(need.getAsLong(), p.getAsLong()));
            }
            needs.add(new OnnxPlan.NodeNeed(cf.node(), bodyPlans, need));
        }
        List<String> unbound = new ArrayList<>();
        for (String s : symbols) {
            // a derived symbol is not to bind: the free symbols it is made of are listed instead
            if (!frozen.containsKey(s) && !imported.derivedSymbols().containsKey(s)) {
                unbound.add(s);
            }
        }
        return new OnnxPlan(imported, frozen, schedule, result, needs, unbound);
    }

    /**
     * The admission figure at {@code bounds}: the outer plan's peak plus the largest transient need
     * of any If/Loop/Scan body, as {@link OnnxPlan#admissionBytes()}. Pass this model to
     * {@link dev.memplan.Admission} to search for the largest request that fits a budget.
     *
     * @param bounds upper bound of each symbol
     * @return the bytes to reserve, or empty (never zero) when a symbol is unbound
     * @throws InvalidSizeException naming the value when a size overflows
     * @throws dev.memplan.onnx.BindingConflictException naming the node (a {@link ModelLimitException}
     *                                                   naming the symbol) when a bound does not fit
     *                                                   the model
     */
    @Override
    public OptionalLong reservationBytes(Map<String, Long> bounds) {
        checkBindings(bounds);
        return planUntraced(bounds).admissionBytes();
    }

    /**
     * Refuses bindings no plan is made at, before anything reads them, on every public way in
     * ({@link #plan}, {@link #reservationBytes}, {@link PlanCache#plan}, a runtime's model): a null
     * map, symbol or value, a symbol the model does not have (a misspelt binding would otherwise be
     * kept silently while its symbol stays unbound), a negative value.
     *
     * @throws NullPointerException naming what is null
     * @throws IllegalArgumentException naming the symbol and the model's symbols
     * @throws InvalidSizeException naming the symbol bound to a negative value
     */
    /**
     * Every name a binding may give: the model's symbols, the ones it derives or made fresh, the
     * value symbols of small integer inputs, and the symbols the inputs declare (a declared dim may
     * be folded away by the import and still be bound by a caller that reads the declaration).
     */
    private static Set<String> bindable(ImportedGraph imported, List<String> symbols, Map<String, Shape> inputs) {
        Set<String> out = new HashSet<>(symbols);
        out.addAll(imported.derivedSymbols().keySet());
        out.addAll(imported.freshSymbols().keySet());
        imported.valueSymbols().values().forEach(out::addAll);
        inputs.values().forEach(shape -> shape.symbols().forEach(symbol -> out.add(symbol.name())));
        return Set.copyOf(out);
    }

    /**
     * Whether a binding may name {@code symbol}: a symbol of the model's inputs or graph, one it
     * derives or made fresh, or a value symbol. {@link #plan} refuses a binding of any other name.
     *
     * @param symbol a symbol name
     * @return true when {@link #plan} accepts a binding of it
     */
    public boolean canBind(String symbol) {
        return bindable.contains(symbol);
    }

    void checkBindings(Map<String, Long> bindings) {
        if (bindings == null) {
            throw new NullPointerException("the bindings are null; pass a map of symbol name to value (an empty"
                    + " map when binding nothing)");
        }
        for (Map.Entry<String, Long> e : bindings.entrySet()) {
            String symbol = e.getKey();
            if (symbol == null) {
                throw new NullPointerException("a binding has a null symbol name (bound to " + e.getValue()
                        + "); name one of the symbols of " + name + ": " + symbols);
            }
            if (!bindable.contains(symbol)) {
                throw new IllegalArgumentException("the model " + name + " has no symbol '" + symbol + "'; its"
                        + " symbols are " + symbols + ": correct the name or remove the binding");
            }
            Long value = e.getValue();
            if (value == null) {
                throw new NullPointerException("symbol '" + symbol + "' is bound to null; bind it to a value >= 0");
            }
            if (value < 0) {
                throw new InvalidSizeException("symbol '" + symbol + "' is bound to " + value
                        + "; bind it to a value >= 0");
            }
        }
    }

    /**
     * Same as {@link #symbols()}, as a set.
     *
     * @return symbol names in first-use order
     */
    @Override
    public Set<String> symbolNames() {
        return new LinkedHashSet<>(symbols);
    }

    // ---- model limits: kept apart from planning so the two merge cleanly ----

    /**
     * The largest value each symbol may take, where the model imposes one: a relation
     * {@code s = min(s, c)} proved by the import (MiniLM: {@code sequence_length <= 512}, its position
     * table's rows). A request above a limit fails with {@link ModelLimitException}; a
     * {@link PlanCache} never buckets past one and {@link dev.memplan.Admission} never searches past one.
     *
     * @return symbol name to its largest value, for the limited symbols only, in relation order
     */
    public Map<String, Long> limits() {
        Map<String, Long> out = new LinkedHashMap<>();
        limits.all().forEach((name, l) -> out.put(name, l.max()));
        return Collections.unmodifiableMap(out);
    }

    /**
     * The largest value {@code symbol} may take.
     *
     * @param symbol a symbol name
     * @return its limit, or empty when the model imposes none (or has no such symbol)
     */
    @Override
    public OptionalLong limit(String symbol) {
        SymbolLimits.Limit l = limits.all().get(symbol);
        return l == null ? OptionalLong.empty() : OptionalLong.of(l.max());
    }

    /** Throws {@link ModelLimitException} when a binding is above its limit, before anything rounds it. */
    void checkLimits(Map<String, Long> bindings) {
        limits.check(bindings);
    }

    /** Throws naming the graph inputs {@code inputShapes} leaves out; see {@link #planForInputs}. */
    void requireEveryInput(Map<String, long[]> inputShapes) {
        binder.requireEvery(inputShapes.keySet());
    }
}
