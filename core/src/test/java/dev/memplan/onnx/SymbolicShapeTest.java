// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.int64s;
import static dev.memplan.onnx.OnnxWriter.intAttr;
import static dev.memplan.onnx.OnnxWriter.ints;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.server.OnnxPlan;
import dev.memplan.validate.PlanValidator;
import dev.memplan.ActivationPlan;
import dev.memplan.PlanOptions;
import dev.memplan.Shape;
import dev.memplan.Graph.Value;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Symbolic shape inference on models written in the test. */
class SymbolicShapeTest {

    private static Value value(ImportedGraph imp, String name) {
        return imp.graph().value(imp.graph().valueId(name).orElseThrow());
    }

    /** x[batch, seq, 64] -> Shape -> Gather(0), Gather(1) -> Unsqueeze -> Concat(.., [4, 16]) -> Reshape. */
    private static OnnxWriter shapeGatherConcatReshape(long[] tail) {
        return OnnxWriter.graph()
                .input("x", type(FLOAT, "batch", "seq", 64))
                .initializer(OnnxWriter.scalar("zero", 0))
                .initializer(OnnxWriter.scalar("one", 1))
                .initializer(int64s("axes0", 0))
                .initializer(int64s("tail", tail))
                .node("Relu", in("x"), out("h"))
                .node("Shape", in("h"), out("s"))
                .node("Gather", in("s", "zero"), out("b"), intAttr("axis", 0))
                .node("Gather", in("s", "one"), out("q"), intAttr("axis", 0))
                .node("Unsqueeze", in("b", "axes0"), out("b1"))
                .node("Unsqueeze", in("q", "axes0"), out("q1"))
                .node("Concat", in("b1", "q1", "tail"), out("newshape"), intAttr("axis", 0))
                .node("Reshape", in("h", "newshape"), out("y"))
                .node("Transpose", in("y"), out("z"), ints("perm", 0, 2, 1, 3))
                .outputNoShape("z");
    }

    @Test
    void shapeGatherConcatReshapeKeepsBatchAndSequenceSymbolic() {
        ImportedGraph imp = OnnxImporter.importModel(shapeGatherConcatReshape(new long[]{4, 16}).model(13),
                ImportOptions.defaults());
        assertEquals(Shape.of("batch", "seq", 4, 16), value(imp, "y").shape());
        assertEquals(Shape.of("batch", 4, "seq", 16), value(imp, "z").shape());
        assertEquals(List.of("batch", "seq"), imp.symbols().keySet().stream().toList());
        // the shape arithmetic folded away: no fresh symbols, Shape/Gather/Concat stay small int64 activations
        assertEquals(Map.of(), imp.freshSymbols());
        for (long[] b : new long[][]{{1, 1}, {2, 128}, {8, 4096}}) {
            Map<String, Long> bindings = Map.of("batch", b[0], "seq", b[1]);
            OnnxPlan plan = OnnxPlanner.plan(imp, bindings, PlanOptions.defaults());
            ActivationPlan p = plan.plan();
            PlanValidator.validate(p);
            assertEquals(b[0] * b[1] * 64 * 4, value(imp, "z").bytesAt(bindings).getAsLong());
            assertTrue(imp.views().isView(value(imp, "y").id()), "Reshape is a view under the ORT policy");
        }
    }

    @Test
    void reshapeMinusOneCancelsSymbolicFactors() {
        // [batch, seq, 64] -> [batch, -1, 64]: the -1 is seq
        OnnxWriter w = OnnxWriter.graph()
                .input("x", type(FLOAT, "batch", "seq", 64))
                .initializer(OnnxWriter.scalar("zero", 0))
                .initializer(int64s("axes0", 0))
                .initializer(int64s("tail", -1, 32, 2))
                .node("Shape", in("x"), out("s"))
                .node("Gather", in("s", "zero"), out("b"), intAttr("axis", 0))
                .node("Unsqueeze", in("b", "axes0"), out("b1"))
                .node("Concat", in("b1", "tail"), out("newshape"), intAttr("axis", 0))
                .node("Reshape", in("x", "newshape"), out("y"))
                .outputNoShape("y");
        ImportedGraph imp = OnnxImporter.importModel(w.model(13), ImportOptions.defaults());
        assertEquals(Shape.of("batch", "seq", 32, 2), value(imp, "y").shape());
    }

    @Test
    void convolutionDerivesMonotoneDims() {
        OnnxWriter w = OnnxWriter.graph()
                .input("x", type(FLOAT, "n", 3, "h", "w"))
                .initializer(OnnxWriter.floats("k", 8, 3, 3, 3))
                .node("Conv", in("x", "k"), out("y"), ints("strides", 2, 2), ints("pads", 1, 1, 1, 1))
                .outputNoShape("y");
        ImportedGraph imp = OnnxImporter.importModel(w.model(13), ImportOptions.defaults());
        Value y = value(imp, "y");
        long previous = -1;
        for (long h = 3; h <= 64; h++) {
            Map<String, Long> b = Map.of("n", 1L, "h", h, "w", h);
            long rows = y.shape().dims().get(2).evaluate(b).getAsLong();
            assertEquals(Math.floorDiv(h + 2 - 3, 2) + 1, rows, "conv output rows at h=" + h);
            assertTrue(rows >= previous, "monotone in h");
            previous = rows;
        }
    }

    @Test
    void dataDependentDimsBecomeFreshSymbols() {
        OnnxWriter w = OnnxWriter.graph()
                .input("x", type(FLOAT, "n"))
                .node("NonZero", in("x"), out("nz"))
                .outputNoShape("nz");
        ImportedGraph imp = OnnxImporter.importModel(w.model(13), ImportOptions.defaults());
        assertEquals(2, imp.symbols().size(), "n and the count of non-zeros: " + imp.symbols());
        String fresh = imp.freshSymbols().keySet().iterator().next();
        assertTrue(imp.symbols().containsKey(fresh));
        OnnxPlan deferred = OnnxPlanner.plan(imp, Map.of("n", 10L), PlanOptions.defaults());
        assertTrue(deferred.admissionBytes().isEmpty(), "the count must be bound");
        OnnxPlan plan = OnnxPlanner.plan(imp, Map.of("n", 10L, fresh, 10L), PlanOptions.defaults());
        assertEquals(1 * 10 * 8, plan.plan().sizeOf(value(imp, "nz").id()));
    }

    @Test
    void unnamedDimsBecomeSymbolsNamedAfterTheirValue() {
        OnnxWriter w = OnnxWriter.graph()
                .input("tokens", type(FLOAT, (Object) null, 16))
                .node("Relu", in("tokens"), out("y"))
                .outputNoShape("y");
        ImportedGraph imp = OnnxImporter.importModel(w.model(13), ImportOptions.defaults());
        assertEquals(List.of("tokens_d0"), imp.symbols().keySet().stream().toList());
    }

    @Test
    void emptyOptionalInputsAreAbsent() {
        OnnxWriter w = OnnxWriter.graph()
                .input("x", type(FLOAT, 4, 8))
                .node("Clip", in("x", "", ""), out("y"))
                .outputNoShape("y");
        ImportedGraph imp = OnnxImporter.importModel(w.model(13), ImportOptions.defaults());
        var node = imp.graph().node(0);
        assertEquals(dev.memplan.Graph.ABSENT, node.input(1));
        assertEquals(dev.memplan.Graph.ABSENT, node.input(2));
        assertEquals(Shape.of(4, 8), value(imp, "y").shape());
    }

    @Test
    void valueInfoDisagreementIsReported() {
        OnnxWriter w = OnnxWriter.graph()
                .input("x", type(FLOAT, 4, 8))
                .node("Relu", in("x"), out("y"))
                .output("y", type(FLOAT, 4, 9));
        ImportedGraph imp = OnnxImporter.importModel(w.model(13), ImportOptions.defaults());
        assertEquals(1, imp.disagreements().size());
        assertEquals("y", imp.disagreements().get(0).valueName());
        assertEquals(Shape.of(4, 9), value(imp, "y").shape(), "the declared shape is used");
    }
}
