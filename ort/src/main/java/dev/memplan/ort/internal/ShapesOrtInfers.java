// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.MemplanException;
import dev.memplan.onnx.proto.OnnxProto.AttributeProto;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import java.io.IOException;
import java.io.OutputStream;
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
    private ShapesOrtInfers() {
    }

    /**
     * Writes the checked model with every undeclared node output declared by name into {@code into}.
     *
     * @return whether it wrote {@code into}; false when the model has external data (load it as is)
     * @throws MemplanException when the copy cannot be written
     */
    static boolean declareEveryValue(OrtModelCheck.Checked checked, Path into) {
        if (checked.externalData()) {
            return false;
        }
        ModelProto.Builder declared = checked.model().toBuilder();
        declare(declared.getGraphBuilder());
        try (OutputStream out = UncachedFileIo.newOutputStream(into)) {
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
}
