// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.Dim;
import dev.memplan.Graph;
import dev.memplan.InvalidGraphException;
import dev.memplan.Shape;
import dev.memplan.Graph.Value;
import dev.memplan.ViewMap;
import dev.memplan.onnx.OnnxFormatException;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import dev.memplan.onnx.rules.InPlaceOps;
import dev.memplan.onnx.symbols.DimSubstitution;
import dev.memplan.onnx.symbols.SymbolRelations;
import dev.memplan.onnx.symbols.TensorInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The last import step: builds the {@link Graph} from what the earlier steps found. Values are
 * numbered graph inputs first, then outer values a body reads, then weights, then node values in
 * dependency order; derived symbols are written out in every shape so that the graph plans with
 * free symbols alone; weight totals are summed; views are proposed per node.
 */
final class GraphAssembly {
    private final GraphProto proto;
    private final GraphScope scope;
    private final ImportSession session;
    private final ValueTable values;
    private final Graph.Builder builder = Graph.builder();
    private final Map<String, Integer> ids = new HashMap<>();
    private final SymbolRelations relations;
    private final Map<String, Dim> derivedExprs = new HashMap<>();

    /** Resolves the session's symbol relations: every later shape is written with them. */
    GraphAssembly(GraphProto proto, GraphScope scope, ImportSession session, ValueTable values) {
        this.proto = proto;
        this.scope = scope;
        this.session = session;
        this.values = values;
        this.relations = session.symbols().resolveRelations();
        relations.derived().forEach((name, d) -> derivedExprs.put(name, d.expression()));
    }

    /** What the node loop found: the order, which nodes were dropped, and the control-flow drafts. */
    record NodeLoop(List<NodeProto> nodes, int[] order, boolean[] dropped,
                 Map<Integer, ControlFlowImporter.ControlFlowDraft> drafts) {
    }

    /**
     * Builds the imported graph.
     *
     * @throws OnnxFormatException naming the value when it is referenced but never defined, or
     *                             when the graph is invalid
     */
    ImportedGraph build(NodeLoop found, List<String> inputNames, DeclaredShapes shapes, List<InferenceFailure> failures) {
        // graph inputs first, then outer values the body reads (owned by the enclosing plan)
        List<Integer> inputs = new ArrayList<>();
        for (String name : inputNames) {
            inputs.add(valueId(name));
        }
        for (String name : values.outerRefs()) {
            if (!ids.containsKey(name) && !values.isOuterWeight(name)) {
                inputs.add(valueId(name));
            }
        }
        // nodes in dependency order among those kept: the planner orders by id, so keep a valid order
        List<Integer> kept = new ArrayList<>();
        for (int n : found.order()) {
            if (!found.dropped()[n]) {
                kept.add(n);
            }
        }
        List<Integer> inits = new ArrayList<>();
        for (String w : usedWeights(found.nodes(), kept)) {
            inits.add(valueId(w));
        }
        long[] weightTotals = weightTotals();
        ViewMap.Builder views = ViewMap.builder();
        List<ControlFlowNode> controlFlow = new ArrayList<>();
        for (int n : kept) {
            addNode(found.nodes().get(n), found.drafts().get(n), views, controlFlow);
        }
        List<Integer> outputs = new ArrayList<>();
        for (ValueInfoProto out : proto.getOutputList()) {
            outputs.add(valueId(out.getName()));
        }
        builder.input(ints(inputs));
        builder.initializer(ints(inits));
        builder.output(ints(outputs));
        Graph graph;
        try {
            graph = builder.build();
        } catch (InvalidGraphException e) {
            throw new OnnxFormatException(scope.where() + ": " + e.getMessage(), e);
        }
        // a declared dim that a relation makes equal to the inferred one is no disagreement
        List<ShapeDisagreement> unexplained = shapes.disagreements().stream()
                .filter(d -> !relations.sameShape(d.declared(), d.inferred())).toList();
        return new ImportedGraph(proto.getName(), graph, views.build(), weightTotals[0], weightTotals[1],
                values.folded().size(), shapes.declared(), unexplained, controlFlow, session.symbols().freshOrigins(),
                shapes.uninferred(), relations, failures);
    }

    /** The weights the kept nodes and the outputs read first, then every other weight of this graph. */
    private Set<String> usedWeights(List<NodeProto> nodes, List<Integer> kept) {
        Set<String> used = new LinkedHashSet<>();
        for (int n : kept) {
            for (String in : Nodes.reads(nodes.get(n))) {
                if (values.isWeight(in)) {
                    used.add(in);
                }
            }
        }
        for (ValueInfoProto out : proto.getOutputList()) {
            if (values.isWeight(out.getName())) {
                used.add(out.getName());
            }
        }
        // every weight of this graph is in the import, read or not, so each ONNX value has a Value
        used.addAll(values.weights());
        return used;
    }

    private void addNode(NodeProto node, ControlFlowImporter.ControlFlowDraft draft, ViewMap.Builder views,
                         List<ControlFlowNode> controlFlow) {
        List<Integer> ins = new ArrayList<>();
        for (String in : node.getInputList()) {
            ins.add(in.isEmpty() ? Graph.ABSENT : valueId(in));
        }
        if (draft != null) {
            for (String extra : draft.implicitInputs()) {
                ins.add(valueId(extra));
            }
        }
        List<Integer> outs = new ArrayList<>();
        for (String out : node.getOutputList()) {
            if (!out.isEmpty()) {
                outs.add(valueId(out));
            }
        }
        int[] inIds = ints(ins);
        int[] outIds = ints(outs);
        int id = builder.node(node.getName(), node.getDomain(), node.getOpType(), inIds, outIds);
        hintInPlace(id, node, inIds, outIds);
        if (draft != null) {
            controlFlow.add(new ControlFlowNode(id, node.getName().isEmpty() ? node.getOpType() + "#" + id
                    : node.getName(), node.getOpType(), draft.implicitInputs(), draft.bodies()));
        }
        ViewProposals.propose(session.options().viewPolicy(), node, inIds, outIds, views);
    }

    /** The in-place hint of the op registry's table (InPlaceOps), on the node's present inputs. */
    private void hintInPlace(int id, NodeProto node, int[] inIds, int[] outIds) {
        InPlaceOps.Entry entry = InPlaceOps.of(node.getDomain(), node.getOpType());
        if (entry == null || outIds.length == 0 || node.getOutput(0).isEmpty()) {
            return; // an absent first output: output 0 of the node is another ONNX output
        }
        int[] present = Arrays.stream(entry.inputs())
                .filter(k -> k < inIds.length && inIds[k] != Graph.ABSENT).toArray();
        if (present.length > 0) {
            builder.inPlace(id, present);
        }
    }

    /**
     * {all weight bytes, folded weight bytes} of this graph, every weight counted once.
     *
     * @throws dev.memplan.InvalidSizeException naming the weight when a size or total overflows:
     *                                          a total never silently drops a tensor
     */
    private long[] weightTotals() {
        long weightBytes = 0;
        long foldedBytes = 0;
        for (String w : values.weights()) {
            OptionalLong bytes = staticBytes(w);
            if (bytes.isPresent()) {
                weightBytes = WeightTotals.add(weightBytes, bytes.getAsLong(), scope.where());
                if (values.folded().contains(w)) {
                    foldedBytes = WeightTotals.add(foldedBytes, bytes.getAsLong(), scope.where());
                }
            }
        }
        return new long[]{weightBytes, foldedBytes};
    }

    private int valueId(String name) {
        Integer id = ids.get(name);
        if (id != null) {
            return id;
        }
        TensorInfo t = values.lookup(name);
        if (t == null) {
            throw new OnnxFormatException(scope.where() + ": value '" + name + "' is referenced but never defined");
        }
        List<Dim> shape = t.shape != null ? t.shape
                : List.of(session.symbols().fresh(name + "_numel", "unknown shape"));
        if (!derivedExprs.isEmpty()) {
            shape = shape.stream().map(d -> DimSubstitution.apply(d, derivedExprs)).toList();
        }
        int v = builder.value(name, t.type, new Shape(shape));
        ids.put(name, v);
        return v;
    }

    /** The bytes of a static-shaped weight, empty for a symbolic shape or a type without a fixed width. */
    private OptionalLong staticBytes(String name) {
        TensorInfo t = values.defined().get(name);
        if (t == null || !t.isStaticShape()) {
            return OptionalLong.empty();
        }
        return (new Value(0, name, t.type, new Shape(t.shape), -1)).bytesAt(Map.of());
    }

    private static int[] ints(List<Integer> list) {
        return list.stream().mapToInt(Integer::intValue).toArray();
    }
}
