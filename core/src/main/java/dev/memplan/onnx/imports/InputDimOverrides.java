// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.imports;

import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.InputDimsException;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.TensorShapeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The main graph's input dims given in place of the declared ones ({@link ImportOptions#inputDims}),
 * checked against the model, and the symbols they take off an input dim: a declaration elsewhere
 * (value_info, graph outputs, bodies) that names one of those followed the exporter's mistake, so
 * the import treats it as unnamed and lets inference say what it is.
 */
final class InputDimOverrides {
    /** No overrides. */
    static final InputDimOverrides NONE = new InputDimOverrides(Map.of(), Set.of());

    private final Map<String, List<String>> dims;
    private final Set<String> replaced;

    private InputDimOverrides(Map<String, List<String>> dims, Set<String> replaced) {
        this.dims = dims;
        this.replaced = replaced;
    }

    /**
     * Checks {@code dims} against the main graph's inputs.
     *
     * @throws InputDimsException naming the input when the model has no such input, or the dims
     *                            are more or fewer than its declared rank
     */
    static InputDimOverrides of(GraphProto main, String source, Map<String, List<String>> dims) {
        if (dims.isEmpty()) {
            return NONE;
        }
        Set<String> initializers = new HashSet<>();
        main.getInitializerList().forEach(t -> initializers.add(t.getName()));
        Set<String> inputs = new LinkedHashSet<>();
        for (ValueInfoProto vi : main.getInputList()) {
            if (!initializers.contains(vi.getName())) {
                inputs.add(vi.getName());
            }
        }
        Set<String> replaced = new HashSet<>();
        for (Map.Entry<String, List<String>> e : dims.entrySet()) {
            String input = e.getKey();
            if (!inputs.contains(input)) {
                throw new InputDimsException("input dims for '" + input + "': " + source + " has no input '" + input
                        + "'; its inputs are " + String.join(", ", inputs) + ": correct the name");
            }
            ValueInfoProto vi = main.getInputList().stream().filter(v -> v.getName().equals(input)).findFirst()
                    .orElseThrow();
            if (!vi.getType().hasTensorType() || !vi.getType().getTensorType().hasShape()) {
                continue; // no declared shape: the given dims are the only ones, of any rank
            }
            TensorShapeProto declared = vi.getType().getTensorType().getShape();
            List<String> given = e.getValue();
            if (given.size() != declared.getDimCount()) {
                throw new InputDimsException("input dims for '" + input + "' give " + given.size() + " dim"
                        + (given.size() == 1 ? "" : "s") + " but " + source + " declares it with rank "
                        + declared.getDimCount() + " " + describe(declared) + ": give " + declared.getDimCount()
                        + " dims, comma-separated");
            }
            for (int i = 0; i < given.size(); i++) {
                String param = declared.getDim(i).getDimParam();
                if (!param.isEmpty() && !param.equals(given.get(i))) {
                    replaced.add(param);
                }
            }
        }
        return new InputDimOverrides(Map.copyOf(dims), Set.copyOf(replaced));
    }

    /** {@return the dims given for the main graph's input {@code name}, or null} */
    List<String> of(String name) {
        return dims.get(name);
    }

    /** {@return whether a declaration naming {@code symbol} is dropped: the given dims took it off an input dim} */
    boolean replaces(String symbol) {
        return replaced.contains(symbol);
    }

    private static String describe(TensorShapeProto shape) {
        List<String> out = new ArrayList<>();
        for (TensorShapeProto.Dimension d : shape.getDimList()) {
            out.add(d.hasDimValue() ? Long.toString(d.getDimValue())
                    : d.getDimParam().isEmpty() ? ImportOptions.UNNAMED_DIM : d.getDimParam());
        }
        return "[" + String.join(", ", out) + "]";
    }
}
