// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.INT64;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.int64s;
import static dev.memplan.onnx.OnnxWriter.intAttr;
import static dev.memplan.onnx.OnnxWriter.ints;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.scalar;
import static dev.memplan.onnx.OnnxWriter.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.server.OnnxPlan;
import dev.memplan.validate.PlanValidator;
import dev.memplan.Shape;
import dev.memplan.Graph.Value;
import dev.memplan.onnx.proto.OnnxProto.AttributeProto;
import dev.memplan.onnx.proto.OnnxProto.TensorProto;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PyTorch exports {@code F.pad(x, (1, 2))} as a chain of constant ops that
 * computes Pad's {@code pads}: {@code ConstantOfShape -> Concat -> Reshape(-1, 2) -> Slice(step -1)
 * -> Transpose -> Reshape(-1) -> Cast}. Every input of the chain is constant, so the chain folds
 * and the padded tensor (and all after it) has a size from the input dims alone, equal to ONNX
 * Runtime's.
 */
class PyTorchPadFoldingTest {

    private static AttributeProto tensorAttr(String name, TensorProto t) {
        return AttributeProto.newBuilder().setName(name).setType(4).setT(t).build();
    }

    /** x[n, 3, len] padded on its last axis by (1, 2), as torch.onnx.export writes it (opset 13). */
    static OnnxWriter padModel() {
        return OnnxWriter.graph().input("x", type(FLOAT, "n", 3, "len"))
                // the pad argument and the rank arithmetic, as Constant nodes like the exporter's
                .node("Constant", in(), out("pad"), tensorAttr("value", int64s("pad_v", 1, 2)))
                .node("Constant", in(), out("rank2"), tensorAttr("value", scalar("r_v", 6)))
                .node("Constant", in(), out("padlen"), tensorAttr("value", scalar("l_v", 2)))
                .node("Sub", in("rank2", "padlen"), out("ext"))
                .initializer(int64s("axis0", 0))
                .node("Unsqueeze", in("ext", "axis0"), out("ext1"))
                .node("ConstantOfShape", in("ext1"), out("zeros"), tensorAttr("value", int64s("zero_v", 0)))
                .node("Concat", in("pad", "zeros"), out("all"), intAttr("axis", 0))
                .initializer(int64s("pairs", -1, 2))
                .node("Reshape", in("all", "pairs"), out("paired"))
                .initializer(int64s("st", -1)).initializer(int64s("en", -9223372036854775807L))
                .initializer(int64s("ax", 0)).initializer(int64s("sp", -1))
                .node("Slice", in("paired", "st", "en", "ax", "sp"), out("flipped"))
                .node("Transpose", in("flipped"), out("tr"), ints("perm", 1, 0))
                .initializer(int64s("flat", -1))
                .node("Reshape", in("tr", "flat"), out("pads64"))
                .node("Cast", in("pads64"), out("pads"), intAttr("to", INT64))
                .node("Pad", in("x", "pads"), out("padded"))
                .node("Relu", in("padded"), out("y"))
                .output("y", type(FLOAT, "n", 3, null));
    }

    @Test
    void padChainFoldsAndPlansWithOnlyInputDimsBound(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("pad.onnx");
        Files.write(file, padModel().bytes(13));
        OnnxModel model = OnnxModel.read(file);
        ImportedGraph imp = OnnxImporter.importModel(model, ImportOptions.defaults());
        assertEquals(Set.of("n", "len"), imp.symbols().keySet(), "no data-dependent symbol: " + imp.freshSymbols());
        Value padded = imp.graph().values().stream().filter(v -> v.name().equals("padded")).findFirst().orElseThrow();
        assertEquals(Shape.of("n", 3, dev.memplan.Dim.Derived.sum(List.of(dev.memplan.Dim.symbol("len")), 3)),
                padded.shape());
        assertEquals(List.of("Pad", "Relu"), imp.graph().nodes().stream().map(nd -> nd.opType()).toList(),
                "the pads chain folds away");

        Map<String, Long> bindings = Map.of("n", 2L, "len", 5L);
        OnnxPlan plan = OnnxPlanner.plan(imp, bindings, PlanOptions.defaults());
        assertTrue(plan.isComplete());
        PlanValidator.validate(plan.plan());
        Set<String> compared = new LinkedHashSet<>();
        List<String> mismatches = OrtComparisonTest.compareWithOrt(file, model, imp, bindings, n -> 1.0, compared);
        assertEquals(List.of(), mismatches);
        assertTrue(compared.containsAll(List.of("padded", "y", "pads", "flipped", "tr")), "compared " + compared);
    }
}
