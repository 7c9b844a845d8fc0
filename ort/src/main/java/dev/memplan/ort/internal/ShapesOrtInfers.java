// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import dev.memplan.MemplanException;
import dev.memplan.onnx.proto.OnnxProto.AttributeProto;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.GraphProtoOrBuilder;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
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
        try (OutputStream out = UncachedFileIo.newOutputStream(into)) {
            declared(checked).writer().writeTo(out);
        } catch (IOException e) {
            throw new MemplanException("cannot write the model for ONNX Runtime to " + into + ": " + e.getMessage()
                    + "; check the free space of the temporary directory (java.io.tmpdir)", e);
        }
        return true;
    }

    /**
     * {@return the checked model with every undeclared node output declared by name}: the checked
     * bytes and {@link #appendix} after them, or the model written anew where branches and bodies
     * need declarations too. Only for a model without external data.
     */
    static ModelHandOver.ModelBytes declared(OrtModelCheck.Checked checked) {
        Optional<ModelHandOver.ModelBytes> appendix = appendix(checked);
        if (appendix.isPresent()) {
            ModelHandOver.ModelBytes after = appendix.get();
            return new ModelHandOver.ModelBytes(checked.bytes().remaining() + after.size(), out -> {
                writeTo(checked.bytes(), out);
                after.writer().writeTo(out);
            });
        }
        ModelProto.Builder declared = checked.model().toBuilder();
        declare(declared.getGraphBuilder());
        ModelProto model = declared.build();
        return new ModelHandOver.ModelBytes(model.getSerializedSize(), model::writeTo);
    }

    /**
     * {@return what declares the main graph's undeclared values when appended to the checked bytes}:
     * a message read twice is merged, repeated fields appended, so the main graph gains the
     * declarations. Empty where the model has branches or bodies, which need declarations inside.
     */
    static Optional<ModelHandOver.ModelBytes> appendix(OrtModelCheck.Checked checked) {
        GraphProto main = checked.model().getGraph();
        if (hasSubgraphs(main)) {
            return Optional.empty();
        }
        GraphProto.Builder declarations = GraphProto.newBuilder();
        undeclared(main).forEach(name -> declarations.addValueInfo(ValueInfoProto.newBuilder().setName(name)));
        ModelProto appended = ModelProto.newBuilder().setGraph(declarations).build();
        return Optional.of(new ModelHandOver.ModelBytes(appended.getSerializedSize(), appended::writeTo));
    }

    /** {@return the node outputs of {@code g} (its subgraphs aside) that are no input, output, weight or declared value} */
    private static List<String> undeclared(GraphProtoOrBuilder g) {
        Set<String> known = new HashSet<>();
        g.getInputList().forEach(v -> known.add(v.getName()));
        g.getOutputList().forEach(v -> known.add(v.getName()));
        g.getValueInfoList().forEach(v -> known.add(v.getName()));
        g.getInitializerList().forEach(t -> known.add(t.getName()));
        List<String> out = new ArrayList<>();
        for (NodeProto node : g.getNodeList()) {
            for (String output : node.getOutputList()) {
                if (!output.isEmpty() && known.add(output)) {
                    out.add(output);
                }
            }
        }
        return out;
    }

    /** {@return whether a node of {@code g} has a branch or body} */
    static boolean hasSubgraphs(GraphProto g) {
        return g.getNodeList().stream().flatMap(n -> n.getAttributeList().stream())
                .anyMatch(a -> a.hasG() || a.getGraphsCount() > 0);
    }

    private static void writeTo(ByteBuffer bytes, OutputStream out) throws IOException {
        ByteBuffer from = bytes.duplicate();
        byte[] chunk = new byte[1 << 16];
        while (from.hasRemaining()) {
            int n = Math.min(chunk.length, from.remaining());
            from.get(chunk, 0, n);
            out.write(chunk, 0, n);
        }
    }

    /** Declares, in {@code g} and in its subgraphs, every node output that is no input, output, weight or declared value. */
    static void declare(GraphProto.Builder g) {
        for (String name : undeclared(g)) { // read from the builder: no copy of the graph
            g.addValueInfo(ValueInfoProto.newBuilder().setName(name));
        }
        for (NodeProto.Builder node : g.getNodeBuilderList()) {
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
