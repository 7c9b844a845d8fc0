// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import dev.memplan.testing.EngineIndependent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The copy of a model ORT loads for memplan: every node output declared by name, in every graph,
 * once; nothing else changed; a model with external data left alone.
 */
@EngineIndependent
class ShapesOrtInfersTest {
    @TempDir
    Path dir;

    @Test
    void everyNodeOutputIsDeclaredByNameOnceInEveryGraph() throws Exception {
        Path model = OrtTestModels.nestedIfModel(dir, 2);
        Path copy = dir.resolve("declared.onnx");
        assertTrue(ShapesOrtInfers.declareEveryValue(OrtModelCheck.beforeOrtReads(model), copy));
        ModelProto original = ModelProto.parseFrom(Files.readAllBytes(model));
        ModelProto declared = ModelProto.parseFrom(Files.readAllBytes(copy));
        // the main graph's only node output is its graph output: nothing to declare there
        assertEquals(List.of(), names(declared.getGraph()));
        GraphProto then0 = declared.getGraph().getNode(0).getAttribute(0).getG();
        assertEquals(List.of("t0", "i0"), names(then0), "o0 is the branch's output");
        GraphProto then1 = then0.getNode(1).getAttribute(0).getG();
        assertEquals(List.of("t1"), names(then1), "the nested If's branch too");
        for (ValueInfoProto vi : then0.getValueInfoList()) {
            assertFalse(vi.hasType(), vi.getName() + ": a name alone, for ORT to fill in");
        }
        // the same model but for the declarations
        ModelProto stripped = declared.toBuilder().setGraph(strip(declared.getGraph())).build();
        assertEquals(original, stripped);
    }

    @Test
    void aModelWithoutSubgraphsIsItsCheckedBytesAndTheDeclarationsAfterThem() throws Exception {
        // x -> Relu -> r -> Sigmoid -> s -> Neg -> y, and one value declared already
        GraphProto graph = GraphProto.newBuilder().setName("chain")
                .addInput(ValueInfoProto.newBuilder().setName("x"))
                .addNode(NodeProto.newBuilder().setOpType("Relu").addInput("x").addOutput("r"))
                .addNode(NodeProto.newBuilder().setOpType("Sigmoid").addInput("r").addOutput("s"))
                .addNode(NodeProto.newBuilder().setOpType("Neg").addInput("s").addOutput("y"))
                .addValueInfo(ValueInfoProto.newBuilder().setName("s"))
                .addOutput(ValueInfoProto.newBuilder().setName("y")).build();
        byte[] bytes = ModelProto.newBuilder().setIrVersion(8).setGraph(graph).build().toByteArray();
        Path model = Files.write(dir.resolve("chain.onnx"), bytes);
        Path copy = dir.resolve("declared.onnx");
        assertTrue(ShapesOrtInfers.declareEveryValue(OrtModelCheck.beforeOrtReads(model), copy));
        byte[] written = Files.readAllBytes(copy);
        assertArrayEquals(bytes, Arrays.copyOf(written, bytes.length), "the checked bytes come first, as they are");
        ModelProto declared = ModelProto.parseFrom(written); // as ORT parses it: the graph read twice, merged
        assertEquals(List.of("s", "r"), names(declared.getGraph()), "r declared after the model's own s");
        assertEquals(graph.getNodeList(), declared.getGraph().getNodeList());
    }

    @Test
    void aModelWithExternalDataIsLoadedAsItIs() throws Exception {
        Files.write(dir.resolve("w.bin"), new byte[16]);
        Path model = OrtTestModels.externalDataModel(dir, "external.onnx", "w.bin", -1, -1);
        Path copy = dir.resolve("declared.onnx");
        assertFalse(ShapesOrtInfers.declareEveryValue(OrtModelCheck.beforeOrtReads(model), copy));
        assertFalse(Files.exists(copy));
    }

    private static List<String> names(GraphProto g) {
        return g.getValueInfoList().stream().map(ValueInfoProto::getName).toList();
    }

    private static GraphProto strip(GraphProto g) {
        GraphProto.Builder b = g.toBuilder().clearValueInfo();
        for (var node : b.getNodeBuilderList()) {
            for (var a : node.getAttributeBuilderList()) {
                if (a.hasG()) {
                    a.setG(strip(a.getG()));
                }
            }
        }
        return b.build();
    }
}
