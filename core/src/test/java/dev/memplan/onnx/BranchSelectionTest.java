// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.INT64;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.Graph.Value;
import dev.memplan.PlanOptions;
import dev.memplan.onnx.imports.ControlFlowNode;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.onnx.proto.OnnxProto.TypeProto;
import dev.memplan.server.CompiledModel;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.server.internal.ServerAccess;
import dev.memplan.validate.PlanValidator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * If nodes whose condition follows from the request, on models that mirror what PyTorch exports:
 * {@code x.squeeze(1)} ({@code If(Equal(Gather(Shape(x), 1), 1))}), a test on a state input's
 * size, and a sample-rate switch on a scalar input. Each is planned at bindings (and input values)
 * that take either branch, and every size is checked against ONNX Runtime (optimizations off).
 */
class BranchSelectionTest {
    @TempDir
    Path dir;

    /** A float tensor type without a shape: what an exporter writes where the rank is not fixed. */
    private static TypeProto floatNoShape() {
        return noShape(FLOAT);
    }

    private static TypeProto noShape(int elemType) {
        return TypeProto.newBuilder().setTensorType(TypeProto.Tensor.newBuilder().setElemType(elemType)).build();
    }

    private static GraphProto body(String name, OnnxWriter w, String output) {
        return w.buildGraph().toBuilder().setName(name).addOutput(OnnxWriter.info(output, floatNoShape())).build();
    }

    /** {@code y = Relu(x.squeeze(1))} for x [n, c, t], exported as PyTorch does. */
    static OnnxWriter squeezeByDim() {
        GraphProto thenBranch = body("squeeze", OnnxWriter.graph().node("Squeeze", in("x", "axis1"), out("sq")), "sq");
        GraphProto elseBranch = body("keep", OnnxWriter.graph().node("Identity", in("x"), out("kept")), "kept");
        return OnnxWriter.graph()
                .input("x", type(FLOAT, "n", "c", "t"))
                .initializer(OnnxWriter.scalar("one", 1))
                .initializer(OnnxWriter.int64s("axis1", 1))
                .node("Shape", in("x"), out("shape"))
                .node("Gather", in("shape", "one"), out("c_dim"))
                .node("Equal", in("c_dim", "one"), out("is_one"))
                .node("If", in("is_one"), out("squeezed"), OnnxWriter.graphAttr("then_branch", thenBranch),
                        OnnxWriter.graphAttr("else_branch", elseBranch))
                .node("Relu", in("squeezed"), out("y"))
                .output("y", floatNoShape());
    }

    /** A recurrent state that starts as zeros [2, batch, 64] when the caller passes an empty one. */
    static OnnxWriter stateSizeTest() {
        GraphProto fresh = body("fresh", OnnxWriter.graph()
                .node("Shape", in("x"), out("x_shape"))
                .node("Gather", in("x_shape", "zero"), out("batch_dim"))
                .node("Unsqueeze", in("batch_dim", "axis0"), out("batch_1"))
                .node("Concat", in("two_1", "batch_1", "width_1"), out("state_shape"), OnnxWriter.intAttr("axis", 0))
                .node("ConstantOfShape", in("state_shape"), out("zeros")), "zeros");
        GraphProto given = body("given", OnnxWriter.graph().node("Identity", in("state"), out("same")), "same");
        return OnnxWriter.graph()
                .input("x", type(FLOAT, "batch", 16))
                .input("state", type(FLOAT, 2, "batch", "h"))
                .initializer(OnnxWriter.scalar("zero", 0))
                .initializer(OnnxWriter.int64s("axis0", 0))
                .initializer(OnnxWriter.int64s("two_1", 2))
                .initializer(OnnxWriter.int64s("width_1", 64))
                .node("Size", in("state"), out("state_size"))
                .node("Equal", in("state_size", "zero"), out("empty"))
                .node("If", in("empty"), out("state0"), OnnxWriter.graphAttr("then_branch", fresh),
                        OnnxWriter.graphAttr("else_branch", given))
                .node("Mul", in("state0", "state0"), out("y"))
                .output("y", floatNoShape());
    }

    /**
     * A detector that pads its input by 64 samples at 16 kHz and 32 at 8 kHz; with {@code range},
     * it also makes a {@code Range(0, sr / 1000)}, whose size only the value of {@code sr} gives.
     */
    static OnnxWriter sampleRateSwitch(boolean range) {
        GraphProto wide = body("sr16k", OnnxWriter.graph().node("Pad", in("x", "pads64"), out("p64")), "p64");
        GraphProto narrow = body("sr8k", OnnxWriter.graph().node("Pad", in("x", "pads32"), out("p32")), "p32");
        OnnxWriter w = OnnxWriter.graph()
                .input("sr", type(INT64))
                .input("x", type(FLOAT, "batch", "seq"))
                .initializer(OnnxWriter.scalar("rate16k", 16000))
                .initializer(OnnxWriter.int64s("pads64", 0, 64, 0, 0))
                .initializer(OnnxWriter.int64s("pads32", 0, 32, 0, 0))
                .node("Equal", in("sr", "rate16k"), out("is16k"))
                .node("If", in("is16k"), out("padded"), OnnxWriter.graphAttr("then_branch", wide),
                        OnnxWriter.graphAttr("else_branch", narrow))
                .node("Relu", in("padded"), out("y"))
                .output("y", floatNoShape());
        if (range) {
            w.initializer(OnnxWriter.scalar("zero", 0)).initializer(OnnxWriter.scalar("step", 1))
                    .initializer(OnnxWriter.scalar("thousand", 1000))
                    .node("Div", in("sr", "thousand"), out("frames"))
                    .node("Range", in("zero", "frames", "step"), out("frame_ids"))
                    .output("frame_ids", noShape(INT64));
        }
        return w;
    }

    /**
     * Plans {@code w} at {@code bindings} (input values included, as value symbols), checks the If
     * took {@code branch} alone and every size against ONNX Runtime fed the same shapes and values.
     */
    private OnnxPlan planAndCompare(OnnxWriter w, Map<String, Long> bindings, Map<String, Double> fills,
                                    String branch) throws Exception {
        Path file = Files.write(dir.resolve("m" + bindings.hashCode() + ".onnx"), w.bytes(17));
        OnnxModel onnx = OnnxModel.read(file);
        ImportedGraph imp = OnnxImporter.importModel(onnx, ImportOptions.defaults());
        assertEquals(1, imp.openConditions().size(), "the condition is open until bound: " + imp.openConditions());
        OnnxPlan plan = OnnxPlanner.plan(imp, bindings, PlanOptions.defaults());
        assertTrue(plan.isComplete(), "complete at " + bindings + ": unbound " + plan.unboundSymbols());
        PlanValidator.validate(plan.plan());
        assertEquals(List.of(), plan.upperBoundBranches(), "the bindings decide the If");
        ControlFlowNode cf = ServerAccess.access().imported(plan).controlFlow().get(0);
        assertEquals(List.of(branch), cf.bodies().stream().map(ControlFlowNode.Body::attribute).toList());
        for (ControlFlowNode.Body b : cf.bodies()) {
            PlanValidator.validate(OnnxPlanner.plan(b.graph(), bindings, PlanOptions.defaults()).plan());
        }
        assertEquals(List.of(), ServerAccess.access().imported(plan).uninferred(), "every value inferred");

        Set<String> compared = new LinkedHashSet<>();
        ImportedGraph decided = imp.forBindings(bindings);
        assertSame(decided, imp.forBindings(new HashMap<>(bindings)), "one import per set of decisions");
        List<String> mismatches = OrtComparisonTest.compareWithOrt(file, onnx, decided, bindings,
                name -> fills.getOrDefault(name, 1.0), compared);
        assertEquals(List.of(), mismatches, "sizes differing from ONNX Runtime at " + bindings);
        for (Value v : decided.graph().values()) {
            if (v.producer() >= 0) {
                assertTrue(compared.contains(v.name()), v.name() + " was checked against ONNX Runtime");
            }
        }
        return plan;
    }

    @Test
    void squeezeByDimTakesTheBranchTheBoundDimSelects() throws Exception {
        OnnxPlan squeezed = planAndCompare(squeezeByDim(), Map.of("n", 2L, "c", 1L, "t", 5L), Map.of(), "then_branch");
        assertEquals(2, ServerAccess.access().imported(squeezed).graph().value(ServerAccess.access().imported(squeezed).graph().valueId("y").orElseThrow())
                .shape().rank(), "the squeeze drops dim 1");
        OnnxPlan kept = planAndCompare(squeezeByDim(), Map.of("n", 2L, "c", 3L, "t", 5L), Map.of(), "else_branch");
        assertEquals(3, ServerAccess.access().imported(kept).graph().value(ServerAccess.access().imported(kept).graph().valueId("y").orElseThrow())
                .shape().rank());
    }

    @Test
    void aStateSizeTestTakesTheBranchTheStateShapeSelects() throws Exception {
        OnnxPlan fresh = planAndCompare(stateSizeTest(), Map.of("batch", 3L, "h", 0L), Map.of(), "then_branch");
        OnnxPlan given = planAndCompare(stateSizeTest(), Map.of("batch", 3L, "h", 8L), Map.of(), "else_branch");
        // zeros [2, 3, 64] squared, against the caller's [2, 3, 8]
        assertNotEquals(fresh.plan().peakBytes(), given.plan().peakBytes());
    }

    @Test
    void aSampleRateValueSelectsTheBranchAndSizesARange() throws Exception {
        Map<String, Long> at16k = Map.of("batch", 1L, "seq", 512L, "sr", 16000L);
        Map<String, Long> at8k = Map.of("batch", 1L, "seq", 256L, "sr", 8000L);
        planAndCompare(sampleRateSwitch(true), at16k, Map.of("sr", 16000.0), "then_branch");
        planAndCompare(sampleRateSwitch(true), at8k, Map.of("sr", 8000.0), "else_branch");

        // the same through the server API: input values beside the input shapes
        CompiledModel model = CompiledModel.compile(OnnxModel.read("sr-model", sampleRateSwitch(true).bytes(17)),
                ImportOptions.defaults(), PlanOptions.defaults());
        assertEquals(Map.of("sr", List.of("sr")), ServerAccess.access().imported(model).valueSymbols());
        OnnxPlan viaServer = model.planForInputs(Map.of("x", new long[] {1, 256}), Map.of("sr", new long[] {8000}));
        OnnxPlan direct = OnnxPlanner.plan(ServerAccess.access().imported(model), at8k, PlanOptions.defaults());
        PlanValidator.validate(viaServer.plan());
        assertEquals(direct.plan().peakBytes(), viaServer.plan().peakBytes());
        // compiled from its file, which the compile gives back unless an open If needs it again
        CompiledModel fromFile = CompiledModel.compile(Files.write(dir.resolve("sr-model.onnx"),
                sampleRateSwitch(true).bytes(17)));
        OnnxPlan decidedLater = fromFile.planForInputs(Map.of("x", new long[] {1, 256}), Map.of("sr", new long[] {8000}));
        PlanValidator.validate(decidedLater.plan());
        assertEquals(direct.plan().peakBytes(), decidedLater.plan().peakBytes());
        assertEquals(direct.admissionBytes(), viaServer.admissionBytes());
        assertEquals(List.of("else_branch"), ServerAccess.access().imported(viaServer).controlFlow().get(0).bodies().stream()
                .map(ControlFlowNode.Body::attribute).toList());
        // with its shape but without its value the Range's size is unknown: deferred, never guessed
        assertTrue(model.planForInputs(Map.of("x", new long[] {1, 256}, "sr", new long[0])).unboundSymbols()
                .contains("sr"));
        // without sr at all the request could not run: rejected, naming the input
        assertTrue(assertThrows(IllegalArgumentException.class, () -> model.planForInputs(Map.of("x", new long[] {1, 256})))
                .getMessage().contains("'sr'"));
    }

    @Test
    void anUnknownConditionPlansBothBranchesAsAnUpperBound() {
        ImportedGraph imp = OnnxImporter.importModel(sampleRateSwitch(false).model(17), ImportOptions.defaults());
        assertEquals(Map.of("node 1 'padded_node' (If)", "sr == 16000"), imp.openConditions());
        Map<String, Long> shapes = Map.of("batch", 1L, "seq", 512L);
        OnnxPlan unknown = OnnxPlanner.plan(imp, shapes, PlanOptions.defaults());
        assertTrue(unknown.isComplete(), "the sample rate only selects a branch: the plan needs no value");
        PlanValidator.validate(unknown.plan());
        assertEquals(List.of("padded_node"), unknown.upperBoundBranches());
        assertEquals(2, unknown.controlFlow().get(0).bodyPeaks().size());
        long bound = unknown.admissionBytes().getAsLong();
        for (long sr : new long[] {16000, 8000}) {
            Map<String, Long> b = new HashMap<>(shapes);
            b.put("sr", sr);
            OnnxPlan decided = OnnxPlanner.plan(imp, b, PlanOptions.defaults());
            PlanValidator.validate(decided.plan());
            assertEquals(List.of(), decided.upperBoundBranches());
            assertTrue(decided.admissionBytes().getAsLong() <= bound, "the unknown plan bounds sr=" + sr);
        }
        // the padded output takes the wider branch: 1 x (512 + 64) floats
        Value y = imp.graph().value(imp.graph().valueId("y").orElseThrow());
        assertEquals(4L * (512 + 64), y.bytesAt(shapes).getAsLong());
    }

    @Test
    void sileroTakesTheBranchItsSampleRateSelects() throws Exception {
        dev.memplan.testing.SharedModels.requirePresent();
        Path file = dev.memplan.testing.SharedModels.path(dev.memplan.testing.SharedModels.SILERO);
        OnnxModel onnx = OnnxModel.read(file);
        ImportedGraph imp = OnnxImporter.importModel(onnx, ImportOptions.defaults());
        assertEquals(List.of("sr"), imp.valueSymbols().get("sr"));
        assertEquals(1, imp.openConditions().size(), imp.openConditions().toString());
        Map<String, Long> bindings = new HashMap<>(ModelCases.bindings(dev.memplan.testing.SharedModels.SILERO));
        OnnxPlan both = OnnxPlanner.plan(imp, bindings, PlanOptions.defaults());
        assertEquals(1, both.upperBoundBranches().size(), "sr unknown: both branches");
        bindings.putAll(imp.valueBindings(Map.of("sr", new long[] {16000})));
        OnnxPlan plan = OnnxPlanner.plan(imp, bindings, PlanOptions.defaults());
        assertTrue(plan.isComplete());
        PlanValidator.validate(plan.plan());
        assertEquals(List.of(), plan.upperBoundBranches());
        assertEquals(1, plan.controlFlow().get(0).bodyPeaks().size(), "one branch planned");
        assertTrue(plan.admissionBytes().getAsLong() <= both.admissionBytes().getAsLong());
        Set<String> compared = new LinkedHashSet<>();
        assertEquals(List.of(), OrtComparisonTest.compareWithOrt(file, onnx, ServerAccess.access().imported(plan), bindings,
                name -> name.equals("sr") ? 16000.0 : 1.0, compared));
        assertTrue(compared.containsAll(List.of("output", "stateN")), compared.toString());
    }

    @Test
    void aConstantConditionImportsTheTakenBranchOnly() {
        // c is fixed at 1 in the file: decided at import, nothing left open
        OnnxWriter w = squeezeByDim();
        GraphProto g = w.buildGraph().toBuilder().setInput(0, OnnxWriter.info("x", type(FLOAT, "n", 1, "t"))).build();
        OnnxModel m = OnnxModel.read("fixed", dev.memplan.onnx.proto.OnnxProto.ModelProto.newBuilder()
                .setIrVersion(8).addOpsetImport(dev.memplan.onnx.proto.OnnxProto.OperatorSetIdProto.newBuilder()
                        .setVersion(17)).setGraph(g).build().toByteArray());
        ImportedGraph imp = OnnxImporter.importModel(m, ImportOptions.defaults());
        assertEquals(Map.of(), imp.openConditions());
        assertEquals(List.of("then_branch"), imp.controlFlow().get(0).bodies().stream()
                .map(ControlFlowNode.Body::attribute).toList());
        assertSame(imp, imp.forBindings(Map.of("n", 1L, "t", 3L)));
    }

    @Test
    void inputValuesAreCheckedAgainstTheInputs() {
        ImportedGraph imp = OnnxImporter.importModel(sampleRateSwitch(true).model(17), ImportOptions.defaults());
        assertEquals(Map.of("sr", 16000L), imp.valueBindings(Map.of("sr", new long[] {16000})));
        String unknown = assertThrows(IllegalArgumentException.class,
                () -> imp.valueBindings(Map.of("x", new long[] {1}))).getMessage();
        assertTrue(unknown.contains("'x'") && unknown.contains("sr"), unknown);
        String count = assertThrows(IllegalArgumentException.class,
                () -> imp.valueBindings(Map.of("sr", new long[] {1, 2}))).getMessage();
        assertTrue(count.contains("1 element"), count);
        String negative = assertThrows(IllegalArgumentException.class,
                () -> imp.valueBindings(Map.of("sr", new long[] {-1}))).getMessage();
        assertTrue(negative.contains(">= 0"), negative);
    }
}
