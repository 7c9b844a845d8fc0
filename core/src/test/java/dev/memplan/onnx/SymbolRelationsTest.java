// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.onnx.symbols.DerivedSymbol;
import dev.memplan.onnx.symbols.DimSubstitution;
import dev.memplan.onnx.symbols.SymbolRelation;
import dev.memplan.onnx.symbols.SymbolRelations;
import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.intAttr;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.server.OnnxPlan;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Where inference proves two dims equal (broadcasting, MatMul and Gemm inner
 * dims, Concat's other axes, an attention mask and the sequence it masks), a symbol equal to an
 * expression of others is derived and needs no binding, and a binding that contradicts the
 * relation is an error naming the node and both sides.
 */
class SymbolRelationsTest {
    private static final String GPT2 = "ort-genai/tiny-random-gpt2-fp32_past.onnx";

    private static ImportedGraph gpt2() {
        SharedModels.requirePresent();
        return OnnxImporter.importModel(OnnxModel.read(SharedModels.path(GPT2)), ImportOptions.defaults());
    }

    @Test
    void gpt2TotalSequenceLengthIsPastPlusCurrent() {
        ImportedGraph imp = gpt2();
        DerivedSymbol total = imp.derivedSymbols().get("total_seq_len");
        assertEquals("total_seq_len = past_seq_len + seq_len", String.valueOf(total));
        assertTrue(total.relation().node().contains("GptAttention_0"), total.relation().node());
        // present_k declares total_seq_len where inference says past + seq: the relation explains it
        assertEquals(List.of(), imp.disagreements());

        Map<String, Long> bound = Map.of("batch_size", 1L, "seq_len", 128L, "past_seq_len", 896L);
        OnnxPlan plan = OnnxPlanner.plan(imp, bound, PlanOptions.defaults());
        assertTrue(plan.isComplete(), "plans without total_seq_len: " + plan.unboundSymbols());
        assertEquals(List.of(), plan.unboundSymbols());
        assertEquals(1024L, plan.bindings().get("total_seq_len"));
        PlanValidator.validate(plan.plan());
        // the same plan as binding it consistently by hand
        Map<String, Long> explicit = new java.util.HashMap<>(bound);
        explicit.put("total_seq_len", 1024L);
        OnnxPlan byHand = OnnxPlanner.plan(imp, explicit, PlanOptions.defaults());
        PlanValidator.validate(byHand.plan());
        assertEquals(byHand.plan().peakBytes(), plan.plan().peakBytes());
        assertEquals(byHand.admissionBytes(), plan.admissionBytes());
        // the graph itself has the expression written out: any planner needs only the free symbols
        var direct = dev.memplan.MemPlan.compile(imp.graph(), imp.views(), PlanOptions.defaults()).plan(bound);
        PlanValidator.validate(direct.orElseThrow());
        assertEquals(plan.plan().peakBytes(), direct.orElseThrow().peakBytes());
    }

    @Test
    void gpt2RejectsAContradictingTotalSequenceLength() {
        ImportedGraph imp = gpt2();
        BindingConflictException e = assertThrows(BindingConflictException.class, () -> OnnxPlanner.plan(imp,
                Map.of("batch_size", 1L, "seq_len", 128L, "past_seq_len", 896L, "total_seq_len", 5L),
                PlanOptions.defaults()));
        String m = e.getMessage();
        assertTrue(m.contains("'GptAttention_0'"), m);
        assertTrue(m.contains("total_seq_len 5") && m.contains("past_seq_len + seq_len 1024"), m);
        assertFalse(m.contains("\n"), "one line: " + m);
    }

    private static ImportedGraph imported(OnnxWriter w) {
        return OnnxImporter.importModel(w.model(17), ImportOptions.defaults());
    }

    @Test
    void matMulInnerDimsAreEqual() {
        ImportedGraph imp = imported(OnnxWriter.graph().input("a", type(FLOAT, "n", "k"))
                .input("b", type(FLOAT, "m", 4)).node("MatMul", in("a", "b"), out("y")).outputNoShape("y"));
        assertEquals("m = k", String.valueOf(imp.derivedSymbols().get("m")));
        OnnxPlan plan = OnnxPlanner.plan(imp, Map.of("n", 2L, "k", 3L), PlanOptions.defaults());
        assertTrue(plan.isComplete());
        PlanValidator.validate(plan.plan());
        BindingConflictException e = assertThrows(BindingConflictException.class,
                () -> OnnxPlanner.plan(imp, Map.of("n", 2L, "k", 3L, "m", 5L), PlanOptions.defaults()));
        assertTrue(e.getMessage().contains("MatMul inner dims") && e.getMessage().contains("m 5")
                && e.getMessage().contains("k 3"), e.getMessage());
    }

    @Test
    void aSymbolMultipliedByAStaticWeightIsThatExtent() {
        ImportedGraph imp = imported(OnnxWriter.graph().input("a", type(FLOAT, "n", "k"))
                .initializer(OnnxWriter.floats("w", 8, 4)).node("Gemm", in("a", "w"), out("y")).outputNoShape("y"));
        assertEquals("k = 8", String.valueOf(imp.derivedSymbols().get("k")));
        OnnxPlan plan = OnnxPlanner.plan(imp, Map.of("n", 2L), PlanOptions.defaults());
        assertTrue(plan.isComplete());
        PlanValidator.validate(plan.plan());
    }

    @Test
    void broadcastDimsAreEqualUnlessOneIsOne() {
        ImportedGraph imp = imported(OnnxWriter.graph().input("a", type(FLOAT, "n", "s"))
                .input("b", type(FLOAT, "n", "t")).node("Add", in("a", "b"), out("y")).outputNoShape("y"));
        assertEquals("t = s", String.valueOf(imp.derivedSymbols().get("t")));
        assertTrue(OnnxPlanner.plan(imp, Map.of("n", 2L, "s", 5L), PlanOptions.defaults()).isComplete());
        // numpy broadcasting: t = 1 is fine
        PlanValidator.validate(OnnxPlanner.plan(imp, Map.of("n", 2L, "s", 5L, "t", 1L), PlanOptions.defaults()).plan());
        BindingConflictException e = assertThrows(BindingConflictException.class,
                () -> OnnxPlanner.plan(imp, Map.of("n", 2L, "s", 5L, "t", 7L), PlanOptions.defaults()));
        assertTrue(e.getMessage().contains("(Add)") && e.getMessage().contains("broadcasting"), e.getMessage());
    }

    @Test
    void concatInputsAgreeOffTheAxis() {
        ImportedGraph imp = imported(OnnxWriter.graph().input("a", type(FLOAT, "n", 3))
                .input("b", type(FLOAT, "m", 4)).node("Concat", in("a", "b"), out("y"), intAttr("axis", 1))
                .outputNoShape("y"));
        assertEquals("m = n", String.valueOf(imp.derivedSymbols().get("m")));
        BindingConflictException e = assertThrows(BindingConflictException.class,
                () -> OnnxPlanner.plan(imp, Map.of("n", 2L, "m", 3L), PlanOptions.defaults()));
        assertTrue(e.getMessage().contains("Concat"), e.getMessage());
    }

    @Test
    void aDoublingChainOfRelationsStaysSmallAndFast() {
        // x_{i+1} is broadcast against Concat(x_i, x_i): s_{i+1} = s_i + s_i, 2^i terms if unchecked
        OnnxWriter w = OnnxWriter.graph();
        int depth = 200;
        for (int i = 0; i <= depth; i++) {
            w.input("x" + i, type(FLOAT, "s" + i));
        }
        for (int i = 0; i < depth; i++) {
            w.node("Concat", in("x" + i, "x" + i), out("c" + i), intAttr("axis", 0))
                    .node("Add", in("c" + i, "x" + (i + 1)), out("y" + i)).outputNoShape("y" + i);
        }
        ImportedGraph imp = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                java.time.Duration.ofSeconds(5), () -> imported(w));
        assertEquals("s1 = s0 + s0", String.valueOf(imp.derivedSymbols().get("s1")));
        for (DerivedSymbol d : imp.derivedSymbols().values()) {
            assertFalse(DimSubstitution.tooComplex(List.of(d.expression())), d::toString);
        }
        // planning with s0 alone fills in what the chain derives
        assertTrue(OnnxPlanner.plan(imp, Map.of("s0", 1L), PlanOptions.defaults()).bindings().containsKey("s1"));
    }

    @Test
    void aRelationBetweenTwoExpressionsIsCheckedAtBindingTime() {
        // (s + 1) broadcast against (t + 1): neither side is a bare symbol, so nothing is derived
        ImportedGraph imp = imported(OnnxWriter.graph().input("a", type(FLOAT, "s")).input("b", type(FLOAT, "t"))
                .initializer(OnnxWriter.int64s("p", 1, 0))
                .node("Pad", in("a", "p"), out("pa")).node("Pad", in("b", "p"), out("pb"))
                .node("Add", in("pa", "pb"), out("y")).outputNoShape("y"));
        assertEquals(Map.of(), imp.derivedSymbols());
        assertEquals(1, imp.relations().checks().size(), imp.relations().checks()::toString);
        PlanValidator.validate(OnnxPlanner.plan(imp, Map.of("s", 4L, "t", 4L), PlanOptions.defaults()).plan());
        assertThrows(BindingConflictException.class,
                () -> OnnxPlanner.plan(imp, Map.of("s", 4L, "t", 6L), PlanOptions.defaults()));
    }
}
