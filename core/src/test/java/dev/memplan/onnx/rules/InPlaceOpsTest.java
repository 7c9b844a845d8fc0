// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx.rules;

import dev.memplan.onnx.ImportOptions;
import dev.memplan.onnx.ModelCases;
import dev.memplan.onnx.OnnxModel;
import dev.memplan.server.OnnxPlan;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.Graph;
import dev.memplan.Graph.Node;
import dev.memplan.PlanOptions;
import dev.memplan.Schedule;
import dev.memplan.Graph.Value;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.testing.ArenaInterpreter;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The op registry's in-place table and what it does to the shared models: every entry names its
 * source and an op the registry infers; imported nodes carry the table's hints; every shared
 * model's default plan runs byte for byte on the arena interpreter with in-place reuse on, and
 * never needs more than the same plan without it.
 */
class InPlaceOpsTest {

    static List<String> models() {
        return SharedModels.forParameters();
    }

    @Test
    void everyEntryNamesItsSourceAndAnInferredOp() {
        assertFalse(InPlaceOps.all().isEmpty());
        InPlaceOps.all().forEach((op, entry) -> {
            assertNotNull(OpRegistry.DEFAULT.rule("", op), op + " is in the in-place table but not inferred");
            assertFalse(entry.source().isBlank(), op + " says where it comes from");
            assertTrue(entry.inputs().length > 0, op);
        });
        assertNull(InPlaceOps.of("", "Softmax"), "ORT's CPU Softmax declares no MayInplace");
        assertNull(InPlaceOps.of("", "LayerNormalization"));
        assertNull(InPlaceOps.of("com.microsoft", "Relu"), "only the default domain is listed");
        assertEquals(InPlaceOps.of("", "Relu"), InPlaceOps.of("ai.onnx", "Relu"));
    }

    @Test
    void importedNodesCarryTheTablesHints() {
        SharedModels.requirePresent();
        ImportedGraph imp = OnnxImporter.importModel(OnnxModel.read(SharedModels.path("onnx-light/light_resnet50.onnx")),
                ImportOptions.defaults());
        int relus = 0;
        for (Node n : imp.graph().nodes()) {
            InPlaceOps.Entry e = InPlaceOps.of(n.domain(), n.opType());
            if (e == null) {
                assertFalse(n.hasInPlaceHint(), n.describe());
            } else {
                assertTrue(n.hasInPlaceHint(), n.describe());
            }
            relus += n.opType().equals("Relu") ? 1 : 0;
        }
        assertEquals(49, relus);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void defaultPlansRunOnTheArenaAndNeverNeedMore(String model) {
        SharedModels.requirePresent();
        ImportedGraph imp = OnnxImporter.importModel(OnnxModel.read(SharedModels.path(model)), ImportOptions.defaults());
        Map<String, Long> bindings = imp.completeBindings(ModelCases.bindings(model));
        OnnxPlan on = OnnxPlanner.plan(imp, bindings, PlanOptions.defaults());
        OnnxPlan off = OnnxPlanner.plan(imp, bindings, PlanOptions.defaults().withInPlace(false));
        ActivationPlan p = on.plan();
        PlanValidator.validate(p);
        PlanValidator.validate(off.plan());
        Schedule s = on.schedule();
        assertEquals(0, off.schedule().numInPlace());
        assertTrue(p.lowerBoundBytes() <= off.plan().lowerBoundBytes(), model);
        assertEquals(off.plan().lowerBoundBytes(), p.lowerBoundWithoutInPlaceBytes(), model + ": the bound without"
                + " in-place reuse is the bound of the plan made without it");
        assertTrue(p.peakBytes() <= off.plan().peakBytes(), model + ": in-place reuse never costs bytes here");
        Graph g = imp.graph();
        long[] bytes = new long[g.valueCount()];
        for (Value v : g.values()) {
            bytes[v.id()] = v.bytesAt(bindings).orElse(0);
        }
        assertNull(new ArenaInterpreter(p, bytes).run(), model);
    }
}
