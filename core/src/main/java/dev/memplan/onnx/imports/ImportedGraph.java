// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.Graph;
import dev.memplan.Shape;
import dev.memplan.Dim.Symbol;
import dev.memplan.ViewMap;
import dev.memplan.onnx.BindingConflictException;
import dev.memplan.onnx.symbols.DerivedSymbol;
import dev.memplan.onnx.symbols.SymCondition;
import dev.memplan.onnx.symbols.SymbolRelations;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * An ONNX graph imported into memplan's model: the graph to plan, the views its ops propose, the
 * symbols to bind, weights, and what shape inference found.
 *
 * <p>Value names in {@link #graph()} are the ONNX value names. Weights (initializers, Constant
 * outputs and folded constants) are the graph's initializers; nodes whose outputs were folded are
 * not in the graph.
 */
public final class ImportedGraph {
    private final String name;
    private final Graph graph;
    private final ViewMap views;
    private final long weightBytes;
    private final long totalWeightBytes;
    private final long foldedBytes;
    private final int foldedValues;
    private final Map<String, Shape> declaredShapes;
    private final List<ShapeDisagreement> disagreements;
    private final List<ControlFlowNode> controlFlow;
    private final Map<String, String> freshSymbols;
    private final List<String> uninferred;
    private final SymbolRelations relations;
    private final List<InferenceFailure> inferenceFailures;
    /** Set on the main graph by {@link OnnxImporter}; bodies keep the empty defaults. */
    private Map<String, List<String>> valueSymbols = Map.of();
    private Map<String, SymCondition> openConditions = Map.of();
    private Map<String, Boolean> decisions = Map.of();
    private Function<Map<String, Boolean>, ImportedGraph> specializer;
    private final Map<Map<String, Boolean>, ImportedGraph> specializations =
            new ConcurrentHashMap<>();

    ImportedGraph(String name, Graph graph, ViewMap views, long weightBytes, long foldedBytes, int foldedValues,
                  Map<String, Shape> declaredShapes, List<ShapeDisagreement> disagreements,
                  List<ControlFlowNode> controlFlow, Map<String, String> freshSymbols, List<String> uninferred,
                  SymbolRelations relations, List<InferenceFailure> inferenceFailures) {
        this.relations = relations;
        this.inferenceFailures = List.copyOf(inferenceFailures);
        this.name = name;
        this.graph = graph;
        this.views = views;
        this.weightBytes = weightBytes;
        this.foldedBytes = foldedBytes;
        this.foldedValues = foldedValues;
        this.declaredShapes = Map.copyOf(declaredShapes);
        this.disagreements = List.copyOf(disagreements);
        this.controlFlow = List.copyOf(controlFlow);
        this.freshSymbols = freshSymbols;
        this.uninferred = List.copyOf(uninferred);
        long total = weightBytes;
        for (ControlFlowNode cf : this.controlFlow) {
            for (ControlFlowNode.Body b : cf.bodies()) {
                total = WeightTotals.add(total, b.graph().totalWeightBytes(), "graph '" + name + "'");
            }
        }
        this.totalWeightBytes = total;
    }

    /** Called once by {@link OnnxImporter} on the main graph, before the import is handed out. */
    void setBranching(Map<String, List<String>> valueSymbols, Map<String, SymCondition> openConditions,
                      Map<String, Boolean> decisions,
                      Function<Map<String, Boolean>, ImportedGraph> specializer) {
        this.valueSymbols = Map.copyOf(valueSymbols);
        this.openConditions = Map.copyOf(openConditions);
        this.decisions = Map.copyOf(decisions);
        this.specializer = openConditions.isEmpty() ? null : specializer;
    }

    /**
     * The inputs whose values the importer tracks (integer or bool inputs of at most
     * {@value GraphInputs#MAX_VALUE_ELEMENTS} elements), each with its value symbols: the input's
     * name for one element, {@code <name>_<i>} for more. Binding them ({@link #valueBindings})
     * folds the values like constants: If conditions, Reshape targets and Range sizes that read
     * them resolve.
     *
     * @return input name to its symbols, in input order
     */
    public Map<String, List<String>> valueSymbols() {
        return valueSymbols;
    }

    /**
     * The symbol bindings that give inputs their values ({@code --value sr=16000}).
     *
     * @param values input name to its elements
     * @return value symbol to value
     * @throws IllegalArgumentException naming the input when it is not a tracked input, the
     *                                  element count differs, or a value is negative
     */
    public Map<String, Long> valueBindings(Map<String, long[]> values) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Map.Entry<String, long[]> e : values.entrySet()) {
            List<String> syms = valueSymbols.get(e.getKey());
            if (syms == null) {
                throw new IllegalArgumentException("input '" + e.getKey() + "' has no tracked value: values can be"
                        + " given to " + (valueSymbols.isEmpty() ? "no input of this model"
                        : "the inputs " + String.join(", ", valueSymbols.keySet()))
                        + " (integer or bool inputs of at most " + GraphInputs.MAX_VALUE_ELEMENTS + " elements)");
            }
            long[] v = e.getValue();
            if (v.length != syms.size()) {
                throw new IllegalArgumentException("input '" + e.getKey() + "' has " + syms.size() + " element"
                        + (syms.size() == 1 ? "" : "s") + ", the value gives " + v.length);
            }
            for (int i = 0; i < v.length; i++) {
                if (v[i] < 0) {
                    throw new IllegalArgumentException("input '" + e.getKey() + "' value " + v[i]
                            + " is negative; memplan tracks input values >= 0 only");
                }
                out.put(syms.get(i), v[i]);
            }
        }
        return out;
    }

    /**
     * If nodes whose condition is an expression of symbols not decided yet, with that expression:
     * {@link #forBindings} decides them per request. An If whose condition is unknown altogether
     * is not listed; both kinds plan both branches (an upper bound) until decided.
     *
     * @return node label to its condition, as text
     */
    public Map<String, String> openConditions() {
        Map<String, String> out = new TreeMap<>();
        openConditions.forEach((k, v) -> out.put(k, v.toString()));
        return out;
    }

    /**
     * This import with every open If condition that {@code bindings} decide resolved to the
     * branch taken: the untaken branch is gone and the If's outputs have the taken branch's
     * shapes. Cheap per request: the conditions are evaluated from the bindings, and each set of
     * decisions is imported once and kept (at most two per If).
     *
     * @param bindings symbol values, value symbols included
     * @return this import when no open condition is decided, else the specialized one
     */
    public ImportedGraph forBindings(Map<String, Long> bindings) {
        if (specializer == null) {
            return this;
        }
        Map<String, Boolean> decided = new TreeMap<>(decisions);
        openConditions.forEach((label, cond) -> cond.evaluate(bindings).ifPresent(v -> decided.put(label, v)));
        if (decided.size() == decisions.size()) {
            return this;
        }
        return specializations.computeIfAbsent(Map.copyOf(decided), specializer).forBindings(bindings);
    }

    /** {@return the ONNX graph's name} */
    public String name() {
        return name;
    }

    /** {@return the graph to plan; value names are the ONNX names} */
    public Graph graph() {
        return graph;
    }

    /** {@return the views the view policy proposed} */
    public ViewMap views() {
        return views;
    }

    /**
     * The symbols of the model's shapes, in first-use order: named dim_params, fresh symbols for
     * unnamed dims, and data-dependent extents; including those only the bodies of control-flow
     * nodes use; then the {@link #derivedSymbols()}, which need no binding (the graph's shapes
     * have their expressions written out, but a caller may still bind them, consistently).
     *
     * @return the symbols by name
     */
    public Map<String, Symbol> symbols() {
        Map<String, Symbol> out = new LinkedHashMap<>(graph.symbols());
        for (ControlFlowNode cf : controlFlow) {
            for (ControlFlowNode.Body b : cf.bodies()) {
                b.graph().symbols().forEach(out::putIfAbsent);
            }
        }
        relations.derived().keySet().forEach(name -> out.putIfAbsent(name, new Symbol(name)));
        return out;
    }

    /**
     * Symbols that follow from others through a relation the model's ops impose, such as
     * {@code total_seq_len = past_seq_len + seq_len}: they need no binding.
     *
     * @return derived symbols by name, in the order they were derived
     */
    public Map<String, DerivedSymbol> derivedSymbols() {
        return relations.derived();
    }

    /**
     * The relations inference proved between the model's symbols.
     *
     * @return the relations, resolved into derived symbols and checks
     */
    public SymbolRelations relations() {
        return relations;
    }

    /**
     * Completes bindings with the derived symbols they determine; see
     * {@link SymbolRelations#complete(Map)}.
     *
     * @param bindings symbol values the caller gives
     * @return {@code bindings} plus the value of every derived symbol they determine
     *
     * @throws BindingConflictException naming the node and both sides when a binding contradicts a
     *                                  relation of the model
     */
    public Map<String, Long> completeBindings(Map<String, Long> bindings) {
        return relations.complete(bindings);
    }

    /** {@return fresh symbols (not named by the model), with where each came from} */
    public Map<String, String> freshSymbols() {
        return freshSymbols;
    }

    /**
     * Bytes of this graph's weights: initializers, Constant outputs and folded constants (bodies of
     * control-flow nodes count their own; see {@link #totalWeightBytes()}).
     *
     * @return the bytes
     */
    public long weightBytes() {
        return weightBytes;
    }

    /**
     * Weight bytes of this graph and of every control-flow body in it. Computed at import, where a
     * total that overflows a long fails the import.
     *
     * @return the bytes
     */
    public long totalWeightBytes() {
        return totalWeightBytes;
    }

    /** {@return bytes of the weights constant folding made (outputs of folded nodes)} */
    public long foldedBytes() {
        return foldedBytes;
    }

    /** {@return how many values constant folding turned into weights} */
    public int foldedValues() {
        return foldedValues;
    }

    /**
     * {@return the ONNX name of a value}
     *
     * @param valueId a value id of {@link #graph()}
     */
    public String onnxName(int valueId) {
        return graph.value(valueId).name();
    }

    /**
     * {@return the shape the model's value_info (or graph input/output declaration) gives, if any}
     *
     * @param onnxName the value's ONNX name
     */
    public Optional<Shape> declaredShape(String onnxName) {
        return Optional.ofNullable(declaredShapes.get(onnxName));
    }

    /** {@return values whose declared shape differs from the inferred one} */
    public List<ShapeDisagreement> disagreements() {
        return disagreements;
    }

    /** {@return the If/Loop/Scan nodes, with their bodies} */
    public List<ControlFlowNode> controlFlow() {
        return controlFlow;
    }

    /**
     * ONNX names of values whose shape neither inference nor value_info gave (they get a fresh
     * {@code <name>_numel} symbol), or whose element type is unknown (their size stays unknown and
     * the plan is deferred: give the model value_info for them).
     *
     * @return the ONNX names
     */
    public List<String> uninferred() {
        return uninferred;
    }

    /**
     * {@return the nodes of this graph and its bodies whose shape inference failed, in node order}
     * Their outputs are in {@link #uninferred()} (or take their declared shapes); this says why.
     */
    public List<InferenceFailure> inferenceFailures() {
        return inferenceFailures;
    }
}
