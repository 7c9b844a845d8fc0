// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.Graph;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.TensorShapeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The shapes ONNX Runtime's planner compares ({@code SameSize}) on a graph ORT saved after
 * optimizing, per value. ORT writes into the saved graph's {@code value_info} the shapes its own
 * inference left on the values it tracks there, symbolic dims by name and a dim it could not infer
 * with neither value nor name; such a dim matches nothing ({@code SameShape} in
 * allocation_planner.cc), so a value with one is never reused. That is the planner's view: on
 * MiniLM int8 at level all, 636 entries, most with unnamed dims inside the layers, and the Python
 * replay with exactly these shapes matches ORT to the byte at 1 x 128 and 4 x 512
 * (docs/ort-runtime.md, section 7), where memplan's own, better-inferred shapes share 107 buffers
 * ORT does not. A value ORT saved without {@code value_info} (every value of the CNNs' saved
 * graphs, whose shapes ORT's inference knows fully) keeps memplan's inferred shape, a derived dim
 * counted as unknown ({@link SameSizeKey#of(Graph.Value)}).
 */
final class OrtPlannerShapes {
    private OrtPlannerShapes() {
    }

    /** {@return per value id of {@code graph} (imported from {@code saved}), the key ORT's planner compares} */
    static SameSizeKey[] of(ModelProto saved, Graph graph) {
        return of(saved, graph, graph);
    }

    /**
     * As {@link #of(ModelProto, Graph)}, a value without a saved shape keyed by its shape in
     * {@code names}: the same graph imported with the dims ORT's file names (where {@code graph} was
     * imported with input dims given in place of them, ORT's planner still compares ORT's names).
     */
    static SameSizeKey[] of(ModelProto saved, Graph graph, Graph names) {
        GraphProto g = saved.getGraph();
        Map<String, ValueInfoProto> declared = new HashMap<>();
        for (List<ValueInfoProto> list : List.of(g.getInputList(), g.getOutputList(), g.getValueInfoList())) {
            for (ValueInfoProto vi : list) {
                declared.putIfAbsent(vi.getName(), vi);
            }
        }
        SameSizeKey[] keys = new SameSizeKey[graph.valueCount()];
        for (int v = 0; v < keys.length; v++) {
            ValueInfoProto vi = declared.get(graph.value(v).name());
            if (vi != null && vi.getType().hasTensorType() && vi.getType().getTensorType().hasShape()) {
                keys[v] = key(graph.value(v).dataType().bits(), vi.getType().getTensorType().getShape());
            } else {
                int same = names == graph ? v : names.valueId(graph.value(v).name()).orElse(-1);
                keys[v] = SameSizeKey.of(same >= 0 ? names.value(same) : graph.value(v));
            }
        }
        return keys;
    }

    /** {@return the key of a declared shape, or null when a dim has neither a value nor a name} */
    private static SameSizeKey key(int bits, TensorShapeProto shape) {
        List<Object> dims = new ArrayList<>(shape.getDimCount());
        for (TensorShapeProto.Dimension d : shape.getDimList()) {
            if (d.hasDimValue() && d.getDimValue() >= 0) {
                dims.add(d.getDimValue());
            } else if (d.hasDimParam() && !d.getDimParam().isEmpty()) {
                dims.add(d.getDimParam());
            } else {
                return null;
            }
        }
        return new SameSizeKey(bits, List.copyOf(dims));
    }
}
