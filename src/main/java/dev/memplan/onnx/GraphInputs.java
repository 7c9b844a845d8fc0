// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.Dim;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import java.util.ArrayList;
import java.util.List;

/** The import step that reads a graph's inputs (those that are not initializers) into its {@link ValueTable}. */
final class GraphInputs {
    private GraphInputs() {
    }

    /**
     * Reads the inputs of {@code graph}; records the symbols they declare in the session.
     *
     * @return the names of the real inputs, in file order
     * @throws OnnxFormatException naming the input when it has no name or is declared twice
     */
    static List<String> read(GraphProto graph, GraphScope scope, ValueTable values, DeclaredShapes shapes,
                             ImportSession session) {
        List<String> inputNames = new ArrayList<>();
        for (int i = 0; i < graph.getInputCount(); i++) {
            ValueInfoProto vi = graph.getInput(i);
            String name = vi.getName();
            if (name.isEmpty()) {
                throw new OnnxFormatException(scope.where() + " input " + i
                        + " has no name; every graph input needs one");
            }
            if (values.isWeight(name) && values.definedHere(name)) {
                continue; // an initializer listed as an input (IR < 4): a weight with a default value
            }
            if (values.definedHere(name)) {
                throw new OnnxFormatException(scope.where() + " declares input '" + name + "' twice");
            }
            inputNames.add(name);
            TensorInfo hint = i < scope.inputHints().size() ? scope.inputHints().get(i) : null;
            TensorInfo info = shapes.input(vi, hint);
            values.put(name, info);
            if (info.shape != null) {
                for (Dim d : info.shape) {
                    d.symbols().forEach(s -> session.inputSymbolNames().add(s.name()));
                }
            }
        }
        return inputNames;
    }
}
