// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.Graph;
import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.onnx.proto.OnnxProto.AttributeProto;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.ModelProto;
import dev.memplan.onnx.proto.OnnxProto.NodeProto;
import dev.memplan.onnx.proto.OnnxProto.OperatorSetIdProto;
import dev.memplan.onnx.proto.OnnxProto.TensorShapeProto;
import dev.memplan.onnx.proto.OnnxProto.TypeProto;
import dev.memplan.onnx.proto.OnnxProto.ValueInfoProto;
import dev.memplan.ort.OrtModel;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.validate.PlanValidator;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kernels without a rule are measured in ONNX Runtime at compile time ({@link KernelProbes}), not
 * refused: through the default path ({@link OrtModel#compile(Path)}), the prediction equals ORT 1.30's
 * figure for the request (src/test/resources/ort/nchwc&lt;block&gt;/measured-kernels.tsv, on the
 * models of src/test/resources/ort/measured/, both written by {@code benchmarks/ort/measured-models.py}).
 */
@EngineIndependent
class OrtMeasuredKernelsTest {
    @TempDir
    Path dir;

    /** PRelu, Round, GreaterOrEqual, Not and Size have no rule; Cast and Mul have. */
    static final Set<String> WITHOUT_RULES = Set.of("PRelu", "Round", "GreaterOrEqual", "Not", "Size");

    static Stream<Arguments> measured() {
        return OrtFigures.rows(OrtFigures.levelAll("measured-kernels.tsv")).stream()
                .map(r -> Arguments.of(r.model(), r.bindings(), r.activation(), r.sha256()));
    }

    static Path resource(String name) throws URISyntaxException {
        return Path.of(OrtMeasuredKernelsTest.class.getResource("/ort/measured/" + name).toURI());
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("measured")
    void kernelsWithoutARuleAreMeasuredAndThePredictionIsOrtsFigure(String model, String dims, long ort,
                                                                   String sha256) throws Exception {
        Path file = resource(model);
        assertEquals(sha256, OrtFigures.sha256(file), file + " is not the model the figure was measured on");
        OrtFigures.assumeTheTableHolds(file, OrtModel.Level.ALL);
        OrtModel.Plan plan = compiled(file).plan(OrtFigures.bindings(dims));
        PlanValidator.validate(plan.plan().plan());
        assertEquals(Set.of(), plan.unmodelledOps(), "every kernel measured or ruled");
        System.out.printf("info: measured kernels, %s %s: predicted %,d, ORT %,d%n", model, dims,
                plan.predictedBytes().orElseThrow(), ort);
        assertEquals(ort, plan.predictedBytes().orElseThrow(), model + " " + dims + ": not ORT's figure");
    }

    private static final Map<Path, OrtModel> COMPILED = new HashMap<>();

    private static synchronized OrtModel compiled(Path file) {
        return COMPILED.computeIfAbsent(file, OrtModel::compile);
    }

    @Test
    void theElementwiseModelIsTheOneTheGeneratorWrites() throws Exception {
        Path checkedIn = resource("elementwise.onnx");
        ImportedGraph a = OnnxImporter.importModel(OnnxModel.read(checkedIn), ImportOptions.defaults());
        ImportedGraph b = OnnxImporter.importModel(OnnxModel.read(elementwiseModel(dir)), ImportOptions.defaults());
        assertEquals(a.graph().nodes().stream().map(Graph.Node::opType).toList(),
                b.graph().nodes().stream().map(Graph.Node::opType).toList(),
                "benchmarks/ort/measured-models.py and elementwiseModel build the same graph");
    }

    @Test
    void theProbesNameTheKernelsTheyMeasuredAndFitWhatTheyTook() throws Exception {
        byte[] bytes = Files.readAllBytes(elementwiseModel(dir));
        ImportedGraph imported = asOrtImportsIt("elementwise", bytes);
        ModelProto proto = ModelProto.parseFrom(bytes);
        // a runner that answers as ORT would for a kernel taking 100 B plus one byte per input byte
        KernelProbes.Measured measured = KernelProbes.measure(imported, proto, probes -> probes.stream()
                .map(p -> fakeResult(p, 100)).toList());
        assertEquals(WITHOUT_RULES, measured.measuredOps());
        assertEquals(Map.of(), measured.unmeasured());
        Graph graph = imported.graph();
        Graph.Node prelu = graph.nodes().stream().filter(n -> n.opType().equals("PRelu")).findFirst().orElseThrow();
        BoundShapes shapes = new BoundShapes(graph, Map.of("batch", 5L, "seq", 7L));
        long[] bytesTaken = measured.rule(graph, prelu).bytes(shapes);
        assertEquals(1, bytesTaken.length);
        assertEquals(100 + 2 * (5 * 7 * 16 * 4), bytesTaken[0], "100 B plus its two inputs' bytes");
    }

    @Test
    void aMeasuredRuleReadsItsSizesByNameInAnotherImportOfTheGraph() throws Exception {
        byte[] bytes = Files.readAllBytes(elementwiseModel(dir));
        ImportedGraph imported = asOrtImportsIt("elementwise", bytes);
        KernelProbes.Measured measured = KernelProbes.measure(imported, ModelProto.parseFrom(bytes), probes -> probes
                .stream().map(p -> fakeResult(p, 100)).toList());
        // the same nodes behind one more graph input, which shifts every value id (as a request's import may)
        ModelProto model = ModelProto.parseFrom(bytes);
        GraphProto.Builder shifted = model.getGraph().toBuilder().clearInput()
                .addInput(ValueInfoProto.newBuilder().setName("unused").setType(floatType("batch", "seq", 1)))
                .addAllInput(model.getGraph().getInputList());
        Graph other = asOrtImportsIt("shifted", model.toBuilder().setGraph(shifted).build().toByteArray()).graph();
        Graph.Node prelu = other.nodes().stream().filter(n -> n.opType().equals("PRelu")).findFirst().orElseThrow();
        assertTrue(other.valueId("x").getAsInt() != imported.graph().valueId("x").getAsInt(),
                "x has another id in the other import");
        long[] taken = measured.rule(other, prelu).bytes(new BoundShapes(other, Map.of("batch", 5L, "seq", 7L)));
        assertEquals(100 + 2 * (5 * 7 * 16 * 4), taken[0], "100 B plus its two inputs' bytes, read in the other graph");
    }

    @Test
    void aKernelWhoseOutputsFollowItsInputsValuesIsLeftUnmeasuredWithWhy() throws Exception {
        byte[] bytes = Files.readAllBytes(elementwiseModel(dir));
        ImportedGraph imported = asOrtImportsIt("elementwise", bytes);
        KernelProbes.Measured measured = KernelProbes.measure(imported, ModelProto.parseFrom(bytes),
                probes -> probes.stream().map(p -> KernelProbeRun.OK + " 0 [1] -").toList());
        assertEquals(Set.of(), measured.measuredOps());
        assertEquals(WITHOUT_RULES, measured.unmeasured().keySet());
        assertTrue(measured.unmeasured().values().stream().allMatch(
                w -> w.equals("its output shapes depend on its inputs' values")), measured.unmeasured().toString());
        KernelProbes.Measured refused = KernelProbes.measure(imported, ModelProto.parseFrom(bytes),
                probes -> probes.stream().map(p -> KernelProbeRun.ERROR + " no kernel").toList());
        assertTrue(refused.unmeasured().values().stream().allMatch(
                w -> w.equals("ONNX Runtime refused the node alone: no kernel")), refused.unmeasured().toString());
        assertFalse(refused.unmeasured().isEmpty());
    }

    @Test
    void aNodeTooLargeToProbeIsLeftUnmeasuredWithWhy() throws Exception {
        GraphProto graph = GraphProto.newBuilder().setName("large")
                .addInput(ValueInfoProto.newBuilder().setName("x").setType(floatType("batch", "seq", 65_536)))
                .addNode(node("Sigmoid", List.of("x"), "slope"))
                .addNode(node("PRelu", List.of("x", "slope"), "y"))
                .addOutput(ValueInfoProto.newBuilder().setName("y").setType(floatType("batch", "seq", 65_536)))
                .build();
        byte[] bytes = ModelProto.newBuilder().setIrVersion(8).addOpsetImport(OperatorSetIdProto.newBuilder()
                .setDomain("").setVersion(17)).setGraph(graph).build().toByteArray();
        ImportedGraph imported = asOrtImportsIt("large", bytes);
        KernelProbes.Measured measured = KernelProbes.measure(imported, ModelProto.parseFrom(bytes), probes -> {
            throw new AssertionError("nothing to run: the probes would pass the limit");
        });
        assertEquals(Map.of("PRelu", "its inputs and outputs at the probe shapes pass 64 MiB"), measured.unmeasured());
    }

    @Test
    void aKernelInsideAnIfBranchIsMeasuredToo() throws Exception {
        // x [batch, seq, 16], flag bool: If(flag) then PRelu(x, Sigmoid(x)) else Relu(x)
        GraphProto then = GraphProto.newBuilder().setName("then")
                .addNode(node("Sigmoid", List.of("x"), "slope"))
                .addNode(node("PRelu", List.of("x", "slope"), "p"))
                .addOutput(ValueInfoProto.newBuilder().setName("p").setType(floatType("batch", "seq", 16))).build();
        GraphProto otherwise = GraphProto.newBuilder().setName("else")
                .addNode(node("Relu", List.of("x"), "q"))
                .addOutput(ValueInfoProto.newBuilder().setName("q").setType(floatType("batch", "seq", 16))).build();
        NodeProto ifNode = node("If", List.of("flag"), "y").toBuilder()
                .addAttribute(AttributeProto.newBuilder().setName("then_branch").setType(5).setG(then))
                .addAttribute(AttributeProto.newBuilder().setName("else_branch").setType(5).setG(otherwise)).build();
        GraphProto graph = GraphProto.newBuilder().setName("branches")
                .addInput(ValueInfoProto.newBuilder().setName("x").setType(floatType("batch", "seq", 16)))
                .addInput(ValueInfoProto.newBuilder().setName("flag").setType(TypeProto.newBuilder()
                        .setTensorType(TypeProto.Tensor.newBuilder().setElemType(9)
                                .setShape(TensorShapeProto.newBuilder()))))
                .addNode(ifNode)
                .addOutput(ValueInfoProto.newBuilder().setName("y").setType(floatType("batch", "seq", 16))).build();
        byte[] bytes = ModelProto.newBuilder().setIrVersion(8).addOpsetImport(OperatorSetIdProto.newBuilder()
                .setDomain("").setVersion(17)).setGraph(graph).build().toByteArray();
        ImportedGraph imported = asOrtImportsIt("branches", bytes);
        List<String> probed = new java.util.ArrayList<>();
        KernelProbes.Measured measured = KernelProbes.measure(imported, ModelProto.parseFrom(bytes), probes -> {
            probes.forEach(p -> probed.add(p.getGraph().getNode(0).getOpType()));
            return probes.stream().map(p -> fakeResult(p, 100)).toList();
        });
        assertEquals(Set.of("PRelu"), measured.measuredOps());
        assertEquals(Set.of("PRelu"), Set.copyOf(probed), "only the branch's kernel without a rule is probed");
        ImportedGraph then1 = imported.controlFlow().get(0).bodies().stream()
                .filter(b -> b.attribute().equals("then_branch")).findFirst().orElseThrow().graph();
        Graph.Node prelu = then1.graph().nodes().stream().filter(n -> n.opType().equals("PRelu")).findFirst()
                .orElseThrow();
        long[] taken = measured.rule(then1.graph(), prelu).bytes(new BoundShapes(then1.graph(),
                Map.of("batch", 3L, "seq", 5L)));
        assertEquals(100 + 2 * (3 * 5 * 16 * 4), taken[0], "100 B plus its two inputs' bytes, in the branch");
    }

    @Test
    void aKernelLeftUnmeasuredInABranchRefusesOnlyTheRequestsThatMayRunIt() throws Exception {
        // x [rows, 2^20] float, flag bool: If(flag) then PRelu(x, x) (too large to probe) else Relu(x)
        GraphProto then = GraphProto.newBuilder().setName("then")
                .addNode(node("PRelu", List.of("x", "x"), "p"))
                .addOutput(ValueInfoProto.newBuilder().setName("p").setType(floatType("rows", 1_048_576))).build();
        GraphProto otherwise = GraphProto.newBuilder().setName("else")
                .addNode(node("Relu", List.of("x"), "q"))
                .addOutput(ValueInfoProto.newBuilder().setName("q").setType(floatType("rows", 1_048_576))).build();
        NodeProto ifNode = node("If", List.of("flag"), "y").toBuilder()
                .addAttribute(AttributeProto.newBuilder().setName("then_branch").setType(5).setG(then))
                .addAttribute(AttributeProto.newBuilder().setName("else_branch").setType(5).setG(otherwise)).build();
        GraphProto graph = GraphProto.newBuilder().setName("unmeasured-branch")
                .addInput(ValueInfoProto.newBuilder().setName("x").setType(floatType("rows", 1_048_576)))
                .addInput(ValueInfoProto.newBuilder().setName("flag").setType(TypeProto.newBuilder()
                        .setTensorType(TypeProto.Tensor.newBuilder().setElemType(9)
                                .setShape(TensorShapeProto.newBuilder()))))
                .addNode(ifNode)
                .addOutput(ValueInfoProto.newBuilder().setName("y").setType(floatType("rows", 1_048_576))).build();
        Path file = dir.resolve("unmeasured-branch.onnx");
        Files.write(file, ModelProto.newBuilder().setIrVersion(8).addOpsetImport(OperatorSetIdProto.newBuilder()
                .setDomain("").setVersion(17)).setGraph(graph).build().toByteArray());
        OrtModel model = OrtModel.compile(file); // the graph's own kernels are all ruled: no refusal here
        OrtModel.Plan relu = model.plan(Map.of("rows", 2L, "flag", 0L));
        PlanValidator.validate(relu.plan().plan());
        assertTrue(relu.predictedBytes().isPresent());
        assertEquals(Set.of(), relu.unmodelledOps());
        for (Map<String, Long> mayRunPRelu : List.of(Map.of("rows", 2L, "flag", 1L), Map.of("rows", 2L))) {
            dev.memplan.MemplanException e = org.junit.jupiter.api.Assertions.assertThrows(
                    dev.memplan.MemplanException.class, () -> model.plan(mayRunPRelu), mayRunPRelu.toString());
            assertTrue(e.getMessage().contains("PRelu: its inputs and outputs at the probe shapes pass 64 MiB")
                    && e.getMessage().contains("in an If branch this request takes or leaves open"), e.getMessage());
        }
    }

    private static TypeProto floatType(String d0, long d1) {
        return TypeProto.newBuilder().setTensorType(TypeProto.Tensor.newBuilder().setElemType(1)
                .setShape(TensorShapeProto.newBuilder()
                        .addDim(TensorShapeProto.Dimension.newBuilder().setDimParam(d0))
                        .addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(d1)))).build();
    }

    /** {@return the model imported as the ort runtime imports ORT's saved graph: nothing folded} */
    private static ImportedGraph asOrtImportsIt(String name, byte[] bytes) {
        return OnnxImporter.importModel(OnnxModel.read(name, bytes), ImportOptions.defaults().withFoldConstants(false));
    }

    /** A result line for probe {@code p}: the expected output shapes, {@code base} plus its inputs' bytes taken. */
    private static String fakeResult(ModelProto p, long base) {
        long inputBytes = 0;
        for (ValueInfoProto in : p.getGraph().getInputList()) {
            long n = 4;
            for (TensorShapeProto.Dimension d : in.getType().getTensorType().getShape().getDimList()) {
                n *= d.getDimValue();
            }
            inputBytes += n;
        }
        // outputs have the input's shape, except Size's scalar
        String shape = KernelProbeRun.join(p.getGraph().getInput(0).getType().getTensorType().getShape().getDimList()
                .stream().mapToLong(TensorShapeProto.Dimension::getDimValue).toArray());
        String out = p.getGraph().getNode(0).getOpType().equals("Size") ? "[]" : shape;
        long taken = base + inputBytes;
        return KernelProbeRun.OK + " " + taken + " " + out + " " + taken; // one block of it
    }

    /**
     * x [batch, seq, 16] -> PRelu(Sigmoid(x)) -> Round -> GreaterOrEqual(PRelu's output, Round's) -> Not
     * -> Cast to float -> Mul by PRelu's output = y; and Size(x) = n.
     */
    static Path elementwiseModel(Path dir) throws Exception {
        GraphProto graph = GraphProto.newBuilder().setName("elementwise")
                .addInput(ValueInfoProto.newBuilder().setName("x").setType(floatType("batch", "seq", 16)))
                .addNode(node("Sigmoid", List.of("x"), "slope"))
                .addNode(node("PRelu", List.of("x", "slope"), "p"))
                .addNode(node("Round", List.of("p"), "r"))
                .addNode(node("GreaterOrEqual", List.of("p", "r"), "g"))
                .addNode(node("Not", List.of("g"), "ng"))
                .addNode(node("Cast", List.of("ng"), "c").toBuilder().addAttribute(AttributeProto.newBuilder()
                        .setName("to").setType(2).setI(1)))
                .addNode(node("Mul", List.of("c", "p"), "y"))
                .addNode(node("Size", List.of("x"), "n"))
                .addOutput(ValueInfoProto.newBuilder().setName("y").setType(floatType("batch", "seq", 16)))
                .addOutput(ValueInfoProto.newBuilder().setName("n").setType(TypeProto.newBuilder()
                        .setTensorType(TypeProto.Tensor.newBuilder().setElemType(7)
                                .setShape(TensorShapeProto.newBuilder()))))
                .build();
        ModelProto model = ModelProto.newBuilder().setIrVersion(8).setProducerName("memplan-test")
                .addOpsetImport(OperatorSetIdProto.newBuilder().setDomain("").setVersion(17)).setGraph(graph).build();
        Path file = dir.resolve("elementwise.onnx");
        Files.write(file, model.toByteArray());
        return file;
    }

    private static NodeProto node(String op, List<String> inputs, String output) {
        return NodeProto.newBuilder().setOpType(op).setName(op + "_" + output).addAllInput(inputs).addOutput(output)
                .build();
    }

    private static TypeProto floatType(String d0, String d1, long d2) {
        return TypeProto.newBuilder().setTensorType(TypeProto.Tensor.newBuilder().setElemType(1)
                .setShape(TensorShapeProto.newBuilder()
                        .addDim(TensorShapeProto.Dimension.newBuilder().setDimParam(d0))
                        .addDim(TensorShapeProto.Dimension.newBuilder().setDimParam(d1))
                        .addDim(TensorShapeProto.Dimension.newBuilder().setDimValue(d2)))).build();
    }
}
