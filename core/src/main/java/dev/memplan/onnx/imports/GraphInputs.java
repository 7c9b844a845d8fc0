// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.DataType;
import dev.memplan.Dim;
import dev.memplan.onnx.OnnxFormatException;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import dev.memplan.onnx.symbols.ElementValues;
import dev.memplan.onnx.symbols.SymInt;
import dev.memplan.onnx.symbols.TensorInfo;
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
            List<String> given = scope.path().isEmpty() ? session.inputDims().of(name) : null;
            TensorInfo info = shapes.input(vi, hint, given);
            values.put(name, info);
            if (info.shape != null) {
                for (Dim d : info.shape) {
                    d.symbols().forEach(s -> session.inputSymbolNames().add(s.name()));
                }
            }
        }
        if (scope.path().isEmpty()) {
            for (String name : inputNames) {
                withValueSymbols(name, values, session);
            }
        }
        return inputNames;
    }

    /** Inputs of up to this many integer elements get one value symbol per element. */
    static final int MAX_VALUE_ELEMENTS = 8;

    /**
     * Gives a small integer or bool input of the main graph one symbol per element (the input's
     * name for one element, {@code <name>_<i>} for more), so that shapes and If conditions computed
     * from it are expressions a request's {@code --value} binds. A name some dim already uses
     * leaves the input's values unknown rather than merge two meanings into one symbol.
     */
    private static void withValueSymbols(String name, ValueTable values, ImportSession session) {
        TensorInfo info = values.lookup(name);
        if (info == null || info.ints != null || !info.isStaticShape()
                || !(info.type == DataType.BOOL || ElementValues.isInteger(info.type))) {
            return;
        }
        long n = 1;
        for (Dim d : info.shape) {
            n *= ((Dim.Fixed) d).extent();
        }
        if (n < 1 || n > MAX_VALUE_ELEMENTS || (n > 1 && info.rank() != 1)) {
            return;
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            names.add(n == 1 ? name : name + "_" + i);
        }
        for (String s : names) {
            if (session.symbols().isUsed(s)) {
                return;
            }
        }
        SymInt[] ints = new SymInt[(int) n];
        for (int i = 0; i < n; i++) {
            ints[i] = SymInt.of(session.symbols().named(names.get(i)));
        }
        values.put(name, new TensorInfo(info.type, info.shape, ints, null));
        session.valueSymbols().put(name, List.copyOf(names));
    }
}
