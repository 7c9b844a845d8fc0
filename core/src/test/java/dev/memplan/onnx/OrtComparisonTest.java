// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.onnx.imports.ControlFlowNode;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.Graph;
import dev.memplan.PlanOptions;
import dev.memplan.Graph.Value;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The ground truth for shape inference: for every shared model, at small bindings, the byte size
 * memplan infers for each node output equals the size ONNX Runtime produced (profiling on,
 * optimizations off), node by node, including the nodes inside If/Loop/Scan bodies.
 */
class OrtComparisonTest {

    static List<String> models() {
        return SharedModels.forParameters();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void inferredSizesEqualOnnxRuntime(String model) throws Exception {
        SharedModels.requirePresent();
        OnnxModel onnx = OnnxModel.read(SharedModels.path(model));
        ImportedGraph imp = OnnxImporter.importModel(onnx, ImportOptions.defaults());
        Map<String, Long> bindings = ModelCases.bindings(model);
        for (String sym : imp.symbols().keySet()) {
            assertTrue(bindings.containsKey(sym), model + ": symbol " + sym + " has no binding in ModelCases");
        }

        Set<String> compared = new LinkedHashSet<>();
        List<String> mismatches = compareWithOrt(SharedModels.path(model), onnx, imp, bindings,
                name -> ModelCases.inputFill(model, name), compared);
        Graph g = imp.graph();
        assertEquals(List.of(), mismatches, model + ": sizes differing from ONNX Runtime");
        // every activation of the main graph was checked against ORT
        List<String> unchecked = new ArrayList<>();
        for (Value v : g.values()) {
            if (v.producer() >= 0 && !compared.contains(v.name())) {
                unchecked.add(v.name());
            }
        }
        assertEquals(List.of(), unchecked, model + ": activations ORT's profile did not cover");
        assertTrue(compared.size() > 0, model + ": nothing compared");
    }

    /**
     * The op coverage tests' check of one small model in {@code file} (its symbol {@code n} bound
     * to 2): every dim inferred, every node output the size ORT reports, every output reported, and
     * the plan valid. Returns the import for checks of the caller's own.
     */
    static ImportedGraph assertSizesEqualOrt(String name, java.nio.file.Path file) throws Exception {
        OnnxModel model = OnnxModel.read(file);
        ImportedGraph imp = OnnxImporter.importModel(model, ImportOptions.defaults());
        Map<String, Long> bindings = Map.of("n", 2L);
        assertEquals(Map.of(), imp.freshSymbols(), name + ": every dim inferred");
        Set<String> compared = new LinkedHashSet<>();
        List<String> mismatches = compareWithOrt(file, model, imp, bindings, n -> 1.0, compared);
        assertEquals(List.of(), mismatches, name);
        for (Value v : imp.graph().values()) {
            if (v.producer() >= 0) {
                assertTrue(compared.contains(v.name()), name + ": ORT did not report " + v.name());
            }
        }
        PlanValidator.validate(OnnxPlanner.plan(imp, bindings, PlanOptions.defaults()).plan());
        return imp;
    }

    /**
     * Runs {@code path} in ORT at {@code bindings} and compares every node output ORT reports with
     * memplan's size; returns the differences and fills {@code compared} with the names checked.
     */
    static List<String> compareWithOrt(java.nio.file.Path path, OnnxModel onnx, ImportedGraph imp,
                                       Map<String, Long> bindings, java.util.function.Function<String, Double> fill,
                                       Set<String> compared) throws Exception {
        Map<String, long[]> inputShapes = new HashMap<>();
        Map<String, Double> fills = new HashMap<>();
        Graph g = imp.graph();
        for (int v : g.inputs()) {
            Value value = g.value(v);
            long[] dims = value.shape().dims().stream()
                    .mapToLong(d -> d.evaluate(bindings).orElseThrow()).toArray();
            inputShapes.put(value.name(), dims);
            fills.put(value.name(), fill.apply(value.name()));
        }
        List<OrtProfile.NodeRun> runs = OrtProfile.run(path, inputShapes, fills);

        Map<String, List<NodeProto>> nodesByName = nodesByOrtName(onnx.proto().getGraph());
        Map<String, Value> values = new HashMap<>();
        collectValues(imp, values);
        List<String> mismatches = new ArrayList<>();
        for (OrtProfile.NodeRun run : runs) {
            List<String> outs = nodesByName.getOrDefault(run.nodeName(), List.of()).stream()
                    .filter(n -> n.getOpType().equals(run.opName())).findFirst()
                    .map(n -> n.getOutputList().stream().filter(o -> !o.isEmpty()).toList()).orElse(null);
            if (outs == null) {
                mismatches.add("ORT ran node '" + run.nodeName() + "' (" + run.opName() + "), which the model does not have");
                continue;
            }
            for (int k = 0; k < Math.min(outs.size(), run.shapes().size()); k++) {
                String name = outs.get(k);
                if (name.isEmpty()) {
                    continue;
                }
                long ortBytes = OrtProfile.width(run.types().get(k));
                for (long d : run.shapes().get(k)) {
                    ortBytes *= d;
                }
                Value mine = values.get(name);
                if (mine == null) {
                    mismatches.add("'" + name + "' (" + run.opName() + "): not in the import");
                    continue;
                }
                OptionalLong bytes = mine.bytesAt(bindings);
                if (bytes.isEmpty() || bytes.getAsLong() != ortBytes) {
                    mismatches.add("'" + name + "' (" + run.opName() + "): memplan " + mine.dataType() + mine.shape()
                            + " = " + bytes + " bytes, ORT " + run.types().get(k) + Arrays.toString(run.shapes().get(k))
                            + " = " + ortBytes + " bytes");
                }
                compared.add(name);
            }
        }
        return mismatches;
    }

    /**
     * Nodes by the name ORT gives them: their own, or {@code <op>_<index in its graph>} for
     * unnamed ones; for the main graph and every body (names may repeat across bodies).
     */
    static Map<String, List<NodeProto>> nodesByOrtName(GraphProto main) {
        Map<String, List<NodeProto>> out = new HashMap<>();
        ArrayDeque<GraphProto> queue = new ArrayDeque<>();
        queue.add(main);
        while (!queue.isEmpty()) {
            GraphProto g = queue.poll();
            int index = 0; // ORT turns Constant nodes into initializers before it numbers the rest
            for (int i = 0; i < g.getNodeCount(); i++) {
                NodeProto n = g.getNode(i);
                if (n.getOpType().equals("Constant")) {
                    continue;
                }
                String name = n.getName().isEmpty() ? n.getOpType() + "_" + index : n.getName();
                index++;
                out.computeIfAbsent(name, k -> new ArrayList<>()).add(n);
                for (var a : n.getAttributeList()) {
                    if (a.hasG()) {
                        queue.add(a.getG());
                    }
                    queue.addAll(a.getGraphsList());
                }
            }
        }
        return out;
    }

    private static void collectValues(ImportedGraph imp, Map<String, Value> out) {
        for (Value v : imp.graph().values()) {
            out.putIfAbsent(v.name(), v);
        }
        for (ControlFlowNode cf : imp.controlFlow()) {
            for (ControlFlowNode.Body b : cf.bodies()) {
                collectValues(b.graph(), out);
            }
        }
    }
}
