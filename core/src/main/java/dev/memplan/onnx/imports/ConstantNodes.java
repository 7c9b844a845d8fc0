// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.read.Attrs;
import dev.memplan.onnx.read.TensorDecoder;
import dev.memplan.onnx.symbols.SymInt;
import dev.memplan.onnx.symbols.SymbolTable;
import dev.memplan.onnx.symbols.TensorInfo;
import java.util.ArrayList;
import java.util.List;

/** The import step for Constant nodes: their value, read from whichever attribute holds it, becomes a weight. */
final class ConstantNodes {
    private ConstantNodes() {
    }

    /** Reads the value of Constant {@code node} and records each output as a weight. */
    static void importConstant(NodeProto node, String nodeDesc, SymbolTable symbols, ValueTable values) {
        TensorInfo t = value(new Attrs(node), nodeDesc, symbols);
        for (String out : node.getOutputList()) {
            if (!out.isEmpty()) {
                values.putWeight(out, t);
            }
        }
    }

    private static TensorInfo value(Attrs a, String nodeDesc, SymbolTable symbols) {
        if (a.getTensor("value") != null) {
            return TensorDecoder.decode(a.getTensor("value"), nodeDesc + " value");
        }
        if (a.has("value_int")) {
            return new TensorInfo(DataType.INT64, List.of(), new SymInt[]{SymInt.of(a.getInt("value_int", 0))}, null);
        }
        if (a.has("value_ints")) {
            long[] v = a.getInts("value_ints");
            SymInt[] s = new SymInt[Math.min(v.length, TensorInfo.MAX_TRACKED_ELEMENTS + 1)];
            for (int i = 0; i < s.length; i++) {
                s[i] = SymInt.of(v[i]);
            }
            return new TensorInfo(DataType.INT64, List.of(Dim.of(v.length)), s.length == v.length ? s : null, null);
        }
        if (a.has("value_float")) {
            return new TensorInfo(DataType.FLOAT32, List.of(), null, new double[]{a.getFloat("value_float", 0)});
        }
        if (a.has("value_floats")) {
            float[] v = a.getFloats("value_floats");
            double[] d = new double[v.length];
            for (int i = 0; i < v.length; i++) {
                d[i] = v[i];
            }
            return new TensorInfo(DataType.FLOAT32, List.of(Dim.of(v.length)), null, d);
        }
        if (a.get("sparse_value") != null) {
            var sp = a.get("sparse_value").getSparseTensor();
            List<Dim> dims = new ArrayList<>();
            for (long d : sp.getDimsList()) {
                dims.add(Dim.of(Math.max(0, d)));
            }
            return TensorInfo.of(TensorDecoder.dataType(sp.getValues().getDataType(), nodeDesc), dims);
        }
        return TensorInfo.of(DataType.STRING, List.of(symbols.fresh("constant_strings", nodeDesc)));
    }
}
