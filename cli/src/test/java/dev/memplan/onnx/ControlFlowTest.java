// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import static dev.memplan.onnx.OnnxWriter.BOOL;
import static dev.memplan.onnx.OnnxWriter.FLOAT;
import static dev.memplan.onnx.OnnxWriter.in;
import static dev.memplan.onnx.OnnxWriter.out;
import static dev.memplan.onnx.OnnxWriter.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.PlanOptions;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.Schedule;
import dev.memplan.cli.OnnxPlanJson;
import dev.memplan.onnx.imports.ControlFlowNode;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.onnx.proto.OnnxProto.GraphProto;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.server.internal.ServerAccess;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** If/Loop/Scan: implicit inputs, bodies planned on their own, transient needs and admission. */
class ControlFlowTest {

    /**
     * {@code a = Neg(x)} is read only inside the then-branch; three more activations are made
     * between it and the If. The branches are {@code Abs(a)} and {@code Abs(c3)}.
     */
    private static ImportedGraph model() {
        GraphProto thenBranch = OnnxWriter.graph()
                .node("Abs", in("a"), out("t"))
                .node("Neg", in("t"), out("t2"))
                .output("t2", type(FLOAT, 1024))
                .buildGraph().toBuilder().setName("then").build();
        GraphProto elseBranch = OnnxWriter.graph()
                .node("Abs", in("c3"), out("e"))
                .output("e", type(FLOAT, 1024))
                .buildGraph().toBuilder().setName("else").build();
        OnnxWriter w = OnnxWriter.graph()
                .input("cond", type(BOOL))
                .input("x", type(FLOAT, 1024))
                .node("Neg", in("x"), out("a"))
                .node("Neg", in("x"), out("c1"))
                .node("Neg", in("c1"), out("c2"))
                .node("Neg", in("c2"), out("c3"))
                .node("If", in("cond"), out("r"), OnnxWriter.graphAttr("then_branch", thenBranch),
                        OnnxWriter.graphAttr("else_branch", elseBranch))
                .node("Relu", in("r"), out("y"))
                .output("y", type(FLOAT, 1024));
        return OnnxImporter.importModel(w.model(13), ImportOptions.defaults());
    }

    @Test
    void anOuterValueUsedOnlyInABodyStaysLiveUntilTheControlFlowNode() {
        ImportedGraph imp = model();
        Graph g = imp.graph();
        int a = g.valueId("a").orElseThrow();
        assertEquals(1, imp.controlFlow().size());
        ControlFlowNode cf = imp.controlFlow().get(0);
        assertEquals("If", cf.opType());
        assertEquals(List.of("a", "c3"), cf.implicitInputs());
        int[] ifInputs = g.node(cf.nodeId()).inputs();
        assertTrue(java.util.Arrays.stream(ifInputs).anyMatch(v -> v == a), "a is an implicit input of the If");

        OnnxPlan plan = OnnxPlanner.plan(imp, Map.of(), PlanOptions.defaults().withStrategy(Strategy.SLOTS));
        ActivationPlan p = plan.plan();
        PlanValidator.validate(p);
        Schedule s = plan.schedule();
        int ifPosition = -1;
        int[] order = s.order();
        for (int i = 0; i < order.length; i++) {
            if (order[i] == cf.nodeId()) {
                ifPosition = i;
            }
        }
        assertEquals(ifPosition, s.useEnd(s.ownerIndexOf(a)), "a lives until the If has run");
        for (String other : List.of("c1", "c2", "c3")) {
            assertNotEquals(p.slotOf(a), p.slotOf(g.valueId(other).orElseThrow()),
                    "a is live while " + other + " is made, so they cannot share a slot");
        }
    }

    @Test
    void bodiesArePlannedAndTheAdmissionFigureAddsTheLargestTransientNeed() {
        ImportedGraph imp = model();
        OnnxPlan plan = OnnxPlanner.plan(imp, Map.of(), PlanOptions.defaults().withInPlace(false));
        OnnxPlan.NodeNeed need = plan.controlFlow().get(0);
        // then: t (4 KiB) and t2 (4 KiB) are both live when t2 is made; else: e alone
        assertEquals(8192L, need.bodyPeaks().get("then_branch").getAsLong());
        // with in-place reuse (the default) t2 takes t's buffer: bodies are planned with the outer options
        assertEquals(4096L, OnnxPlanner.plan(imp, Map.of(), PlanOptions.defaults()).controlFlow().get(0).bodyPeaks()
                .get("then_branch").getAsLong());
        assertEquals(4096L, need.bodyPeaks().get("else_branch").getAsLong());
        assertEquals(8192L, need.transientNeed().getAsLong());
        assertEquals(plan.plan().peakBytes() + 8192L, plan.admissionBytes().getAsLong());
        for (ControlFlowNode.Body b : ServerAccess.access().node(need).bodies()) {
            assertTrue(b.graph().graph().isGraphInput(b.graph().graph().valueId(
                    b.attribute().equals("then_branch") ? "a" : "c3").orElseThrow()),
                    "outer values are inputs of the body graph, owned by the outer plan");
            PlanValidator.validate(OnnxPlanner.plan(b.graph(), Map.of(), PlanOptions.defaults()).plan());
        }
        var json = OnnxPlanJson.toJson(plan);
        assertEquals(8192L, json.get("controlFlow").get(0).get("transientNeedBytes").asLong());
        assertEquals("a", json.get("controlFlow").get(0).get("implicitInputs").get(0).asText());
    }

    @Test
    void sharedControlFlowModelsPlan() {
        SharedModels.requirePresent();
        for (String m : List.of("onnx-node/test_if/model.onnx", "onnx-node/test_loop11/model.onnx",
                "onnx-node/test_scan_sum/model.onnx", "silero/silero_vad_op18_ifless.onnx")) {
            ImportedGraph imp = OnnxImporter.importModel(OnnxModel.read(SharedModels.path(m)), ImportOptions.defaults());
            assertEquals(1, imp.controlFlow().size(), m);
            OnnxPlan plan = OnnxPlanner.plan(imp, ModelCases.bindings(m), PlanOptions.defaults());
            assertTrue(plan.isComplete(), m);
            if (m.contains("test_if")) {
                // its branches are Constant nodes: weights, so the bodies need no activation memory
                assertEquals(0L, plan.largestTransientNeed().getAsLong(), m);
            } else {
                assertTrue(plan.largestTransientNeed().getAsLong() > 0, m + " has a body that needs memory");
            }
            assertEquals(plan.plan().peakBytes() + plan.largestTransientNeed().getAsLong(),
                    plan.admissionBytes().getAsLong());
        }
    }
}
