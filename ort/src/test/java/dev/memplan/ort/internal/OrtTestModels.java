// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtLoggingLevel;
import ai.onnxruntime.OrtSession;
import dev.memplan.ort.OrtModel;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
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

    /**
     * ORT's environment for tests that call ORT Java themselves, made on a 16 MB stack as
     * docs/library.md tells users to (ORT Java 1.29 crashes a 1 MB stack making it).
     */
    public static OrtEnvironment environment() {
        return BigStack.call("test-ort-environment", OrtEnvironment::getEnvironment);
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
            try (OrtSession s = environment().createSession(model.toString(), o)) {
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

    /**
     * A model whose one weight {@code w} (float [4]) keeps its data in external data at
     * {@code location}, from {@code offset} for {@code length} bytes (both left out when negative):
     * {@code y = x + w}, saved as {@code name} in {@code dir}.
     */
    public static Path externalDataModel(Path dir, String name, String location, long offset, long length)
            throws Exception {
        TypeProto type = floatType(4);
        var weight = dev.memplan.onnx.proto.OnnxProto.TensorProto.newBuilder().setName("w").addDims(4).setDataType(1)
                .setDataLocation(1).addExternalData(entry("location", location));
        if (offset >= 0) {
            weight.addExternalData(entry("offset", Long.toString(offset)));
        }
        if (length >= 0) {
            weight.addExternalData(entry("length", Long.toString(length)));
        }
        GraphProto graph = GraphProto.newBuilder().setName("external")
                .addInput(ValueInfoProto.newBuilder().setName("x").setType(type))
                .addInitializer(weight)
                .addNode(NodeProto.newBuilder().setOpType("Add").setName("add").addInput("x").addInput("w").addOutput("y"))
                .addOutput(ValueInfoProto.newBuilder().setName("y").setType(type)).build();
        Path file = dir.resolve(name);
        Files.write(file, model(graph).toByteArray());
        return file;
    }

    /**
     * A model of {@code depth} nested Ifs on one condition input {@code c}: each then branch runs
     * {@code Relu} on the outer {@code x} (float [64]) and the next If, the else branches {@code Neg}.
     */
    public static Path nestedIfModel(Path dir, int depth) throws Exception {
        GraphProto[] inner = null;
        for (int d = depth - 1; d >= 0; d--) {
            NodeProto.Builder thenNodes = NodeProto.newBuilder().setOpType("Relu").setName("relu" + d).addInput("x")
                    .addOutput("t" + d);
            GraphProto.Builder then = GraphProto.newBuilder().setName("then" + d).addNode(thenNodes);
            if (inner != null) {
                then.addNode(ifNode("if" + (d + 1), "i" + d, inner))
                        .addNode(NodeProto.newBuilder().setOpType("Add").setName("add" + d).addInput("t" + d)
                                .addInput("i" + d).addOutput("o" + d));
            } else {
                then.addNode(NodeProto.newBuilder().setOpType("Identity").setName("id" + d).addInput("t" + d)
                        .addOutput("o" + d));
            }
            then.addOutput(ValueInfoProto.newBuilder().setName("o" + d).setType(floatType(64)));
            GraphProto otherwise = GraphProto.newBuilder().setName("else" + d)
                    .addNode(NodeProto.newBuilder().setOpType("Neg").setName("neg" + d).addInput("x").addOutput("e" + d))
                    .addOutput(ValueInfoProto.newBuilder().setName("e" + d).setType(floatType(64))).build();
            inner = new GraphProto[] {then.build(), otherwise};
        }
        TypeProto bool = TypeProto.newBuilder().setTensorType(TypeProto.Tensor.newBuilder().setElemType(9)
                .setShape(TensorShapeProto.newBuilder())).build();
        GraphProto graph = GraphProto.newBuilder().setName("nested" + depth)
                .addInput(ValueInfoProto.newBuilder().setName("x").setType(floatType(64)))
                .addInput(ValueInfoProto.newBuilder().setName("c").setType(bool))
                .addNode(ifNode("if0", "y", inner))
                .addOutput(ValueInfoProto.newBuilder().setName("y").setType(floatType(64))).build();
        Path file = dir.resolve("nested-if-" + depth + ".onnx");
        Files.write(file, model(graph).toByteArray());
        return file;
    }

    /**
     * An If on condition {@code c} whose then branch slices the outer {@code x} (float [64]) from the
     * outer input {@code start} (int64 [1]) before it reduces it to one float: the slice's size is
     * known only at run time, the If's output ([1]) always. The else branch reduces {@code x} itself.
     */
    public static Path ifWithARunTimeSlice(Path dir) throws Exception {
        TypeProto int64One = TypeProto.newBuilder().setTensorType(TypeProto.Tensor.newBuilder().setElemType(7)
                .setShape(TensorShapeProto.newBuilder().addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(1))))
                .build();
        dev.memplan.onnx.proto.OnnxProto.AttributeProto axes = dev.memplan.onnx.proto.OnnxProto.AttributeProto
                .newBuilder().setName("axes").setType(7).addInts(0).build();
        GraphProto then = GraphProto.newBuilder().setName("sliced")
                .addNode(NodeProto.newBuilder().setOpType("Slice").setName("slice").addInput("x").addInput("start")
                        .addInput("end").addOutput("part"))
                .addNode(NodeProto.newBuilder().setOpType("ReduceMean").setName("mean_part").addInput("part")
                        .addOutput("m").addAttribute(axes))
                .addOutput(ValueInfoProto.newBuilder().setName("m").setType(floatType(1))).build();
        GraphProto otherwise = GraphProto.newBuilder().setName("whole")
                .addNode(NodeProto.newBuilder().setOpType("ReduceMean").setName("mean_all").addInput("x")
                        .addOutput("w").addAttribute(axes))
                .addOutput(ValueInfoProto.newBuilder().setName("w").setType(floatType(1))).build();
        TypeProto bool = TypeProto.newBuilder().setTensorType(TypeProto.Tensor.newBuilder().setElemType(9)
                .setShape(TensorShapeProto.newBuilder())).build();
        GraphProto graph = GraphProto.newBuilder().setName("run-time-slice")
                .addInput(ValueInfoProto.newBuilder().setName("x").setType(floatType(64)))
                .addInput(ValueInfoProto.newBuilder().setName("c").setType(bool))
                .addInput(ValueInfoProto.newBuilder().setName("start").setType(int64One))
                .addInitializer(dev.memplan.onnx.OnnxWriter.int64s("end", 64))
                .addNode(ifNode("choose", "y", new GraphProto[] {then, otherwise}))
                .addOutput(ValueInfoProto.newBuilder().setName("y").setType(floatType(1))).build();
        ModelProto model = model(graph).toBuilder().clearOpsetImport()
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(13)).build();
        Path file = dir.resolve("if-run-time-slice.onnx");
        Files.write(file, model.toByteArray());
        return file;
    }

    /**
     * An op ORT runs and memplan imports whose kernel has no workspace rule ({@code OrtKernels}): the
     * unmodelled kernel of the refusal tests. When it gets a rule, those tests fail; pick another.
     */
    public static final String WITHOUT_A_RULE = "Round";

    /** A model of one {@code opType} node on float [64] {@code x}: a kernel with or without a workspace rule. */
    public static Path singleOpModel(Path dir, String opType) throws Exception {
        GraphProto graph = GraphProto.newBuilder().setName("one-" + opType)
                .addInput(ValueInfoProto.newBuilder().setName("x").setType(floatType(64)))
                .addNode(NodeProto.newBuilder().setOpType(opType).setName("only").addInput("x").addOutput("y"))
                .addOutput(ValueInfoProto.newBuilder().setName("y").setType(floatType(64))).build();
        Path file = dir.resolve("one-" + opType + ".onnx");
        Files.write(file, model(graph).toByteArray());
        return file;
    }

    private static NodeProto ifNode(String name, String output, GraphProto[] branches) {
        return NodeProto.newBuilder().setOpType("If").setName(name).addInput("c").addOutput(output)
                .addAttribute(dev.memplan.onnx.proto.OnnxProto.AttributeProto.newBuilder().setName("then_branch")
                        .setType(5).setG(branches[0]))
                .addAttribute(dev.memplan.onnx.proto.OnnxProto.AttributeProto.newBuilder().setName("else_branch")
                        .setType(5).setG(branches[1])).build();
    }

    private static TypeProto floatType(long n) {
        return TypeProto.newBuilder().setTensorType(TypeProto.Tensor.newBuilder().setElemType(1)
                .setShape(TensorShapeProto.newBuilder().addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(n))))
                .build();
    }

    private static dev.memplan.onnx.proto.OnnxProto.StringStringEntryProto entry(String key, String value) {
        return dev.memplan.onnx.proto.OnnxProto.StringStringEntryProto.newBuilder().setKey(key).setValue(value).build();
    }

    private static ModelProto model(GraphProto graph) {
        return ModelProto.newBuilder().setIrVersion(8).setProducerName("memplan-test")
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(17)).setGraph(graph).build();
    }
}
