// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.onnx.OnnxFormatException;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.SparseTensorProto;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import dev.memplan.onnx.read.TensorDecoder;
import dev.memplan.onnx.symbols.TensorInfo;
import java.util.ArrayList;
import java.util.List;

/** The import step that reads a graph's dense and sparse initializers into its {@link ValueTable} as weights. */
final class Initializers {
    private Initializers() {
    }

    /**
     * Reads every initializer of {@code graph}.
     *
     * @throws OnnxFormatException naming the initializer when it has no name, is declared twice,
     *                             or has a negative dim or an unknown element type
     */
    static void read(GraphProto graph, String where, ValueTable values) {
        for (int i = 0; i < graph.getInitializerCount(); i++) {
            TensorProto t = graph.getInitializer(i);
            String name = t.getName();
            String at = where + " initializer " + i + " '" + name + "'";
            if (name.isEmpty()) {
                throw new OnnxFormatException(at + " has no name; every initializer needs one");
            }
            TensorInfo info = TensorDecoder.decode(t, at);
            if (values.definedHere(name)) {
                throw new OnnxFormatException(at + " is declared twice; initializer names must be unique");
            }
            values.putWeight(name, info);
        }
        for (int i = 0; i < graph.getSparseInitializerCount(); i++) {
            SparseTensorProto s = graph.getSparseInitializer(i);
            String name = s.getValues().getName();
            String at = where + " sparse initializer " + i + " '" + name + "'";
            DataType type = TensorDecoder.dataType(s.getValues().getDataType(), at);
            List<Dim> dims = new ArrayList<>();
            for (long d : s.getDimsList()) {
                if (d < 0) {
                    throw new OnnxFormatException(at + " has a negative dim " + d);
                }
                dims.add(Dim.of(d));
            }
            values.putWeight(name, TensorInfo.of(type, dims));
        }
    }
}
