// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtLoggingLevel;
import ai.onnxruntime.OrtSession;
import dev.memplan.server.OrtModel;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.ImportedGraph;
import dev.memplan.onnx.OnnxImporter;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.OperatorSetIdProto;
import dev.memplan.onnx.proto.OnnxProto.TensorShapeProto;
import dev.memplan.onnx.proto.OnnxProto.TypeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Test support for the ort runtime, written apart from {@link OrtRuntimeProfile} so that the
 * wiring is checked against an independent path: ORT saves its graph here with ORT Java directly,
 * memplan imports it, and {@link OrtArenaPredictor} predicts on it.
 */
public final class OrtTestModels {
    private OrtTestModels() {
    }

    /** The predictor's figure for {@code model} at {@code level}, obtained without the wiring under test. */
    public static long independentPrediction(Path model, OrtModel.Level level, Map<String, Long> bindings, Path dir)
            throws Exception {
        Path saved = Files.createTempFile(dir, "saved-", ".onnx");
        try (OrtSession.SessionOptions o = new OrtSession.SessionOptions()) {
            o.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.valueOf(level.ortName()));
            o.setIntraOpNumThreads(1);
            o.setSessionLogLevel(OrtLoggingLevel.ORT_LOGGING_LEVEL_ERROR); // level all warns it is machine-specific
            o.setOptimizedModelFilePath(saved.toString());
            try (OrtSession s = OrtEnvironment.getEnvironment().createSession(model.toString(), o)) {
                // saved when the session is made
            }
        }
        byte[] bytes = Files.readAllBytes(saved);
        ImportedGraph graph = OnnxImporter.importModel(OnnxModel.read("saved", bytes),
                ImportOptions.defaults().withFoldConstants(false).withNchwcBlockSize(OrtRuntimeProfile.nchwcBlockSize()));
        OrtArenaPredictor predictor = OrtArenaPredictor.ofSaved(graph.graph(), ModelProto.parseFrom(bytes),
                level != OrtModel.Level.NONE);
        return predictor.predict(graph.completeBindings(bindings)).activationBytes();
    }

    /**
     * A model memplan reads and plans (its one node's output is declared) but ONNX Runtime cannot
     * load: the node is an op of a domain ORT has no kernel for.
     */
    public static Path unloadableModel(Path dir) throws Exception {
        TypeProto type = TypeProto.newBuilder().setTensorType(TypeProto.Tensor.newBuilder().setElemType(1)
                .setShape(TensorShapeProto.newBuilder()
                        .addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(4))
                        .addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(256)))).build();
        GraphProto graph = GraphProto.newBuilder().setName("mystery")
                .addInput(ValueInfoProto.newBuilder().setName("x").setType(type))
                .addNode(NodeProto.newBuilder().setOpType("Mystery").setDomain("com.example").setName("m")
                        .addInput("x").addOutput("y"))
                .addOutput(ValueInfoProto.newBuilder().setName("y").setType(type)).build();
        byte[] bytes = ModelProto.newBuilder().setIrVersion(8).setProducerName("memplan-test")
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(17))
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("com.example").setVersion(1))
                .setGraph(graph).build().toByteArray();
        Path file = dir.resolve("mystery.onnx");
        Files.write(file, bytes);
        return file;
    }
}
