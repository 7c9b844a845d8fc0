// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import dev.memplan.MemplanException;
import dev.memplan.onnx.proto.OnnxProto.AttributeProto;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * Asks ONNX Runtime for the shapes its own inference gives every value, which its planner compares
 * ({@link OrtPlannerShapes}). ORT writes a value's shape into the graph it saves only when the model
 * declares the value in {@code value_info}; a declaration with a name alone is enough (ORT fills in
 * the type and shape it infers). So the model ORT loads for memplan declares every node output the
 * file leaves undeclared, by name.
 *
 * <p>Why it matters: ORT's inference leaves a dim unknown where it cannot follow a shape computed at
 * run time (a Reshape whose target comes from Shape and Concat), and its planner never reuses a
 * buffer for a value with an unknown dim. On the fp32 BGE, E5 and MiniLM encoders (no
 * {@code value_info} in the file) memplan's own, better-inferred shapes shared buffers ORT does not:
 * the prediction was 1.8x ORT's figure; with ORT's shapes it equals it.
 *
 * <p>A model with external data is loaded as it is: written elsewhere, its relative locations would
 * no longer resolve. Its values without {@code value_info} keep memplan's shapes.
 */
final class ShapesOrtInfers {
    /** ONNX's TensorProto.DataLocation.EXTERNAL. */
    private static final int EXTERNAL = 1;

    private ShapesOrtInfers() {
    }

    /**
     * Writes {@code model} with every undeclared node output declared by name into {@code into}.
     *
     * @return whether it wrote {@code into}; false when the model has external data (load it as is)
     * @throws MemplanException when the file cannot be read again or the copy cannot be written
     */
    static boolean declareEveryValue(Path model, Path into) {
        ModelProto proto = OrtModelCheck.read(model);
        if (hasExternalData(proto.getGraph())) {
            return false;
        }
        ModelProto.Builder declared = proto.toBuilder();
        declare(declared.getGraphBuilder());
        try (OutputStream out = Files.newOutputStream(into)) {
            declared.build().writeTo(out);
        } catch (IOException e) {
            throw new MemplanException("cannot write the model for ONNX Runtime to " + into + ": " + e.getMessage()
                    + "; check the free space of the temporary directory (java.io.tmpdir)", e);
        }
        return true;
    }

    /** Declares, in {@code g} and in its subgraphs, every node output that is no input, output, weight or declared value. */
    static void declare(GraphProto.Builder g) {
        Set<String> known = new HashSet<>();
        g.getInputList().forEach(v -> known.add(v.getName()));
        g.getOutputList().forEach(v -> known.add(v.getName()));
        g.getValueInfoList().forEach(v -> known.add(v.getName()));
        g.getInitializerList().forEach(t -> known.add(t.getName()));
        for (NodeProto.Builder node : g.getNodeBuilderList()) {
            for (String output : node.getOutputList()) {
                if (!output.isEmpty() && known.add(output)) {
                    g.addValueInfo(ValueInfoProto.newBuilder().setName(output));
                }
            }
            for (AttributeProto.Builder a : node.getAttributeBuilderList()) {
                if (a.hasG()) {
                    declare(a.getGBuilder());
                }
                for (GraphProto.Builder body : a.getGraphsBuilderList()) {
                    declare(body);
                }
            }
        }
    }

    private static boolean hasExternalData(GraphProto g) {
        for (TensorProto t : g.getInitializerList()) {
            if (isExternal(t)) {
                return true;
            }
        }
        for (NodeProto n : g.getNodeList()) {
            for (AttributeProto a : n.getAttributeList()) {
                boolean external = (a.hasT() && isExternal(a.getT()))
                        || a.getTensorsList().stream().anyMatch(ShapesOrtInfers::isExternal)
                        || (a.hasG() && hasExternalData(a.getG()))
                        || a.getGraphsList().stream().anyMatch(ShapesOrtInfers::hasExternalData);
                if (external) {
                    return true;
                }
            }
        }
        return g.getSparseInitializerList().stream().anyMatch(s -> isExternal(s.getValues())
                || isExternal(s.getIndices()));
    }

    private static boolean isExternal(TensorProto t) {
        return t.getDataLocation() == EXTERNAL || t.getExternalDataCount() > 0;
    }
}
