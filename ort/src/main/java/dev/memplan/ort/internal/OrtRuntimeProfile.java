// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.MemplanException;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.imports.ControlFlowNode;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The ort runtime's figure for a model: the graph ONNX Runtime runs at the server's optimization
 * level (obtained through ONNX Runtime Java, {@link OrtOptimizedGraph}), imported by memplan's
 * importer as ORT saved it, and an {@link OrtArenaPredictor} compiled on it once. Per request,
 * {@link #predict} replays the request's sizes. Immutable and thread-safe.
 */
public final class OrtRuntimeProfile {
    /** What a caller reads when ONNX Runtime Java is absent (documented in docs/library.md). */
    public static final String ORT_MISSING = "ONNX Runtime Java (com.microsoft.onnxruntime:onnxruntime) is not"
            + " on the class path; add it or use the memplan runtime";

    private final String level;
    private final ImportedGraph ortGraph;
    private final OrtArenaPredictor predictor;
    /** Per import with its If branches decided by a request (ImportedGraph.forBindings, by identity): its predictor. */
    private final Map<ImportedGraph, OrtArenaPredictor> decided = new ConcurrentHashMap<>();
    /** The workspaces measured in ORT for kernels without a rule, and those left unmeasured. */
    private final KernelProbes.Measured measured;
    /** What compiles a predictor for a decided import (the saved and original models, weights dropped); or null. */
    private final Function<ImportedGraph, OrtArenaPredictor> compiler;
    /** Whether ORT's graph keeps a batch's rows apart, so a request may run in pieces. */
    private final BatchRows batchRows;
    /**
     * What a request that runs a kernel without a rule meets: null with allowances, else how the
     * caller's users ask for one (the profile refuses such a request).
     */
    private final String refuseUnmodelledAskingWith;
    /** What the session's creation held in ORT's arena above what it kept, measured when ORT saved the graph. */
    private final long sessionStartBytes;
    /** The state the session's creation left ORT's arena in, which each request's replay starts from. */
    private final OrtArenaStart arenaStart;

    private OrtRuntimeProfile(String level, ImportedGraph ortGraph, OrtArenaPredictor predictor,
                              Function<ImportedGraph, OrtArenaPredictor> compiler, KernelProbes.Measured measured,
                              BatchRows batchRows, String refuseUnmodelledAskingWith, long sessionStartBytes,
                              OrtArenaStart arenaStart) {
        this.sessionStartBytes = sessionStartBytes;
        this.arenaStart = arenaStart;
        this.refuseUnmodelledAskingWith = refuseUnmodelledAskingWith;
        this.level = level;
        this.batchRows = batchRows;
        this.measured = measured;
        this.ortGraph = ortGraph;
        this.predictor = predictor;
        this.compiler = compiler;
    }

    /**
     * Refuses a graph ONNX Runtime saved that this JVM cannot read: past protobuf's 2 GiB, or more
     * than a quarter of the heap (the bytes, the parsed model and the import each hold about as
     * much). A small model can save a large one: ORT folds constants at its basic level and above,
     * and a ConstantOfShape of a large shape becomes a weight of that size.
     *
     * @throws MemplanException naming the model, the level and the size, saying what to do
     */
    static void checkSavedSize(Path model, String level, long savedBytes, long maxHeapBytes) {
        boolean pastProtobuf = savedBytes > Integer.MAX_VALUE - 8L;
        if (pastProtobuf || savedBytes > maxHeapBytes / 4) {
            throw new MemplanException("the graph ONNX Runtime saved for " + model.getFileName() + " at level " + level
                    + " is " + savedBytes + " bytes with the constants it folded, more than "
                    + (pastProtobuf ? "protobuf reads (2 GiB)" : "a quarter of this JVM's heap (" + maxHeapBytes
                    + " bytes)") + "; give the JVM a larger heap (-Xmx), or use the memplan runtime");
        }
    }

    /**
     * Obtains the graph ONNX Runtime runs for {@code model} at {@code level} and compiles the
     * predictor on it.
     *
     * @param model the {@code .onnx} file a server loads
     * @param level the name of ONNX Runtime Java's {@code OptLevel} constant ({@code ALL_OPT}...)
     * @return the profile
     * @throws OrtUnavailable when ONNX Runtime Java is not on the class path or its
     *                                     native library cannot load
     * @throws MemplanException            with ORT's reason when ORT cannot load the model; naming
     *                                     the kernels whose workspace has no rule and could not be
     *                                     measured (no allowance here)
     */
    public static OrtRuntimeProfile load(Path model, String level) {
        return load(model, level, false);
    }

    /**
     * As {@link #load(Path, String)}; with {@code allowances}, a kernel whose workspace has no rule
     * is predicted with an allowance (its inputs' and outputs' bytes, live during it: a guess, not
     * a bound) and named in each prediction, instead of refused.
     *
     * @param model      the {@code .onnx} file a server loads
     * @param level      the name of ONNX Runtime Java's {@code OptLevel} constant ({@code ALL_OPT}...)
     * @param allowances whether to predict kernels without a rule by an allowance
     * @return the profile
     * @throws MemplanException naming the kernels without a rule, when {@code allowances} is false
     */
    public static OrtRuntimeProfile load(Path model, String level, boolean allowances) {
        return load(model, level, allowances, "OrtModel.UnmodelledKernels.ALLOWANCE");
    }

    /**
     * As {@link #load(Path, String, boolean)}, the refusal saying how the caller's users ask for an
     * allowance (a command line names its option, not a Java type).
     *
     * @param model      the {@code .onnx} file a server loads
     * @param level      the name of ONNX Runtime Java's {@code OptLevel} constant ({@code ALL_OPT}...)
     * @param allowances whether to predict kernels without a rule by an allowance
     * @param askWith    what asks for the allowance where the refusal is read, e.g. an option
     * @return the profile
     * @throws MemplanException naming the kernels without a rule and {@code askWith}, when
     *                          {@code allowances} is false
     */
    public static OrtRuntimeProfile load(Path model, String level, boolean allowances, String askWith) {
        return load(model, level, allowances, askWith, Map.of());
    }

    /**
     * As {@link #load(Path, String, boolean, String)}, ORT's graph imported with these input dims
     * in place of the declared ones ({@code ImportOptions.withInputDims}): ORT checks no dim names,
     * so the dims a request's plan took (an override, or a symbol split) size ORT's graph too. ORT's
     * planner keeps the names its saved graph has, as ORT does.
     *
     * @param inputDims the dims by input name, as {@code ImportOptions.withInputDims} takes them
     * @return the profile
     */
    public static OrtRuntimeProfile load(Path model, String level, boolean allowances, String askWith,
                                         Map<String, List<String>> inputDims) {
        Objects.requireNonNull(askWith, "askWith");
        Objects.requireNonNull(inputDims, "inputDims");
        OrtRuntimeProfile profile = loadGraph(model, level, inputDims, allowances ? null : askWith);
        profile.refuseUnmodelled(profile.predictor.unmodelledOutsideBranches(), "");
        return profile;
    }

    /**
     * Refuses a graph or a request that runs kernels without a rule that could not be measured.
     *
     * @param where empty for the graph's own nodes, else the request's words: an If branch ORT
     *              may run for it
     */
    private void refuseUnmodelled(Set<String> unmodelled, String where) {
        if (refuseUnmodelledAskingWith != null && !unmodelled.isEmpty()) {
            throw new MemplanException("ONNX Runtime's graph of the model runs kernels whose workspace memplan has no"
                    + " rule for and could not measure (" + whyUnmeasured(unmodelled, measured) + ")" + where
                    + ", and memplan does not guess it; use the memplan runtime, or accept an allowance of each such"
                    + " kernel's inputs and outputs (a guess, not a bound) with " + refuseUnmodelledAskingWith);
        }
    }

    /** The ops with why they were not measured, ops of one reason together: {@code Not, PRelu: its output shapes...}. */
    private static String whyUnmeasured(Set<String> ops, KernelProbes.Measured measured) {
        Map<String, List<String>> byReason = new LinkedHashMap<>();
        for (String op : ops) {
            byReason.computeIfAbsent(measured.unmeasured().getOrDefault(op, ""), r -> new ArrayList<>()).add(op);
        }
        return String.join("; ", byReason.entrySet().stream().map(e -> String.join(", ", e.getValue())
                + (e.getKey().isEmpty() ? "" : ": " + e.getKey())).toList());
    }

    /** {@return whether ORT's graph keeps a batch's rows apart, and by which symbol} */
    public BatchRows batchRows() {
        return batchRows;
    }

    /** {@return the op types whose workspace was measured in ORT, each once, sorted} */
    public Set<String> measuredOps() {
        return measured.measuredOps();
    }

    private static OrtRuntimeProfile loadGraph(Path model, String level, Map<String, List<String>> inputDims,
                                               String refuseUnmodelledAskingWith) {
        Objects.requireNonNull(model, "model");
        requireOrtJava();
        Path saved = OrtTempFiles.newFile(".onnx"); // in this process's folder: a shutdown hook removes it
        try {
            OrtOptimizedGraph.save(model, level, saved);
            long sessionStart = OrtOptimizedGraph.readSessionStartPeak(saved);
            OrtArenaStart arenaStart = OrtOptimizedGraph.readArenaStart(saved);
            checkSavedSize(model, level, Files.size(saved), Runtime.getRuntime().maxMemory());
            byte[] bytes = UncachedFileIo.readAllBytes(saved);
            ModelProto proto = ModelProto.parseFrom(bytes);
            OrtJavaInputs.requireFeedable(proto.getGraph()); // ORT saves such a graph; it cannot be run from Java
            // as ORT runs it: ORT folded what its level folds, and its NCHWc block is this machine's
            ImportOptions asSaved = ImportOptions.defaults().withFoldConstants(false).withNchwcBlockSize(nchwcBlockSize());
            ImportedGraph graph = OnnxImporter.importModel(OnnxModel.read(model + " as ONNX Runtime runs it", bytes),
                    asSaved.withInputDims(inputDims));
            // ORT's planner compares the names ORT saved, whatever dims memplan sizes the graph by
            Graph plannerNames = inputDims.isEmpty() ? graph.graph() : OnnxImporter.importModel(
                    OnnxModel.read(model + " as ONNX Runtime runs it", bytes), asSaved).graph();
            boolean optimized = !level.equals("NO_OPT");
            long modelBytes = Files.size(model);
            KernelProbes.Measured measured = KernelProbes.measure(graph, proto,
                    probes -> OrtOptimizedGraph.probeKernels(SavedWeights.inline(probes, saved), modelBytes));
            BatchRows rows = BatchRows.of(graph, proto);
            if (graph.controlFlow().isEmpty()) {
                return new OrtRuntimeProfile(level, graph,
                        OrtArenaPredictor.ofSaved(graph.graph(), proto, optimized, measured, plannerNames), null, measured,
                        rows, refuseUnmodelledAskingWith, sessionStart, arenaStart);
            }
            // If: each branch replayed inside the If (OrtSubgraphReplay); the one a request takes, once its
            // bindings decide the condition, else the larger. The models are kept without weight data.
            ModelProto savedNodes = withoutWeightData(proto);
            ModelProto originalNodes = withoutWeightData(ModelProto.parseFrom(UncachedFileIo.readAllBytes(model)));
            Function<ImportedGraph, OrtArenaPredictor> compiler =
                    g -> OrtArenaPredictor.ofSaved(g, savedNodes, originalNodes, optimized, measured);
            return new OrtRuntimeProfile(level, graph, compiler.apply(graph), compiler, measured, rows,
                    refuseUnmodelledAskingWith, sessionStart, arenaStart);
        } catch (IOException e) {
            throw new MemplanException("cannot read the graph ONNX Runtime saved for the model: " + e.getMessage()
                    + "; check the free space of the temporary directory (java.io.tmpdir)", e);
        } finally {
            for (Path file : List.of(saved, SavedWeights.of(saved), OrtOptimizedGraph.sessionStartFile(saved),
                    OrtOptimizedGraph.arenaStartFile(saved))) { // a failure may leave any
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    file.toFile().deleteOnExit();
                }
            }
        }
    }

    /**
     * {@code model} with the main graph's initializers reduced to their names and dims (what the If
     * replay reads of them), so a profile does not keep a second copy of the weights.
     */
    private static ModelProto withoutWeightData(ModelProto model) {
        var graph = model.getGraph().toBuilder().clearInitializer();
        for (var t : model.getGraph().getInitializerList()) {
            graph.addInitializer(OnnxProto.TensorProto.newBuilder().setName(t.getName())
                    .addAllDims(t.getDimsList()).setDataType(t.getDataType()));
        }
        return model.toBuilder().setGraph(graph).build();
    }

    /**
     * Throws {@link OrtUnavailable} with {@link #ORT_MISSING} when ONNX Runtime Java
     * cannot be found by this module's class loader (on the module path it must be resolved:
     * {@code --add-modules com.microsoft.onnxruntime}).
     */
    static void requireOrtJava() {
        try {
            Class.forName("ai.onnxruntime.OrtSession", false, OrtRuntimeProfile.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new OrtUnavailable(ORT_MISSING, e);
        }
    }

    /** {@return whether ONNX Runtime Java is on the class path, so the ort runtime can be asked for} */
    public static boolean ortJavaPresent() {
        try {
            requireOrtJava();
            return true;
        } catch (OrtUnavailable e) {
            return false;
        }
    }

    /**
     * ORT's NCHWc channel block on this machine, as MLAS chooses it on x86: 16 with AVX-512F, else
     * 8. Elsewhere the importer's default (a saved graph has NCHWc ops only where MLAS has kernels).
     * Public for the tests that import graphs ORT saved on this machine; the package is not exported.
     *
     * @return the block, in floats
     */
    public static int nchwcBlockSize() {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!arch.equals("amd64") && !arch.equals("x86_64")) {
            return ImportOptions.DEFAULT_NCHWC_BLOCK;
        }
        Path cpuinfo = Path.of("/proc/cpuinfo");
        try {
            return Files.isReadable(cpuinfo) && Files.readString(cpuinfo).contains(" avx512f") ? 16 : 8;
        } catch (IOException e) {
            return 8;
        }
    }

    /**
     * The prediction for one request.
     *
     * @param model    the model's own import, whose symbols {@code bindings} name
     * @param bindings the request's symbol values
     * @return the predicted arena figure and its parts
     * @throws dev.memplan.InvalidSizeException naming the value of ORT's graph whose size the
     *                                          bindings leave unknown
     */
    public OrtArenaPrediction predict(ImportedGraph model, Map<String, Long> bindings) {
        Map<String, Long> complete = ortGraph.completeBindings(withInputDims(model, bindings,
                namedByTheModel(model, bindings)));
        if (compiler == null) {
            return predictor.predict(complete, arenaStart).afterSessionStart(sessionStartBytes);
        }
        ImportedGraph specialized = ortGraph.forBindings(complete); // the If branches these bindings decide
        OrtArenaPredictor branches = specialized == ortGraph ? predictor
                : decided.computeIfAbsent(specialized, compiler);
        refuseUnmodelled(branches.unmodelledOps(), " in an If branch this request takes or leaves open (giving the"
                + " inputs its condition reads as values decides it)");
        return branches.predict(complete, arenaStart).afterSessionStart(sessionStartBytes);
    }

    /**
     * The bindings of symbols the model's file names (its dim_params and value symbols). A fresh
     * symbol (an unnamed dim) or a derived one belongs to one import: ORT's graph is imported apart
     * and may name its own differently, so passing them on could size a tensor of ORT's graph by
     * another's extent; left out, ORT's graph derives its own or the prediction fails naming the value.
     * A Loop's trip count is passed on: both imports name it after the same Loop.
     */
    private Map<String, Long> namedByTheModel(ImportedGraph model, Map<String, Long> bindings) {
        Map<String, Long> out = new HashMap<>(bindings);
        out.keySet().removeIf(name -> model.freshSymbols().containsKey(name) && !isSharedTripCount(model, name));
        out.keySet().removeAll(model.derivedSymbols().keySet());
        return out;
    }

    /**
     * Whether fresh symbol {@code name} is a Loop's trip count in both imports: named after the Loop
     * node or its first output, which ORT's graph keeps, so it is the same Loop's.
     */
    private boolean isSharedTripCount(ImportedGraph model, String name) {
        return isTripCount(model.freshSymbols().get(name)) && isTripCount(ortGraph.freshSymbols().get(name));
    }

    private static boolean isTripCount(String origin) {
        return origin != null && origin.startsWith(ControlFlowNode.TRIP_COUNT_ORIGIN);
    }

    /**
     * Adds to {@code named} the request's extent of each input dim ORT's graph sizes by a symbol of
     * its own (an unnamed dim: a fresh symbol, left out of {@code named}), found by input name and
     * axis, which both imports share. Without them an If whose condition reads such a dim (a
     * {@code Squeeze} exported as an If on the dim being 1) stays open in ORT's graph, and its
     * branches' merged shapes are no shape ORT runs.
     */
    private Map<String, Long> withInputDims(ImportedGraph model, Map<String, Long> bindings, Map<String, Long> named) {
        Graph modelGraph = model.graph();
        Graph ort = ortGraph.graph();
        for (int in : modelGraph.inputs()) {
            Graph.Value value = modelGraph.value(in);
            int ortInput = ort.valueId(value.name()).orElse(-1);
            if (ortInput < 0 || !java.util.Arrays.stream(ort.inputs()).anyMatch(i -> i == ortInput)) {
                continue;
            }
            List<Dim> dims = value.shape().dims();
            List<Dim> ortDims = ort.value(ortInput).shape().dims();
            for (int axis = 0; axis < dims.size() && axis < ortDims.size(); axis++) {
                if (ortDims.get(axis) instanceof Dim.Symbol symbol && !named.containsKey(symbol.name())) {
                    java.util.OptionalLong extent = dims.get(axis).evaluate(bindings);
                    if (extent.isPresent()) {
                        named.put(symbol.name(), extent.getAsLong());
                    }
                }
            }
        }
        return named;
    }

    /** {@return the ORT Java {@code OptLevel} name this profile predicts for} */
    public String level() {
        return level;
    }

    /** {@return the graph ONNX Runtime runs, as memplan imported it} */
    public ImportedGraph ortGraph() {
        return ortGraph;
    }
}
