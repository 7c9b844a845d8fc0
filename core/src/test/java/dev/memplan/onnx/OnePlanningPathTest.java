// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.onnx.imports.ControlFlowNode;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.server.CompiledModel;
import dev.memplan.server.ModelLimitException;
import dev.memplan.server.OnnxPlan;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.server.internal.ServerAccess;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One planning path: the command line and the pictures ({@link OnnxPlanner}, a fresh
 * compile per call) and the server ({@link CompiledModel}, compiled once from the file, planned
 * request after request) give the same unbound symbols, control-flow need and plan, on every
 * shared model and the If/Loop/Scan models, at no bindings, the model table's bindings, each of
 * those with one symbol left out (deferred) and, for an If a value decides, each branch.
 */
class OnePlanningPathTest {

    static List<String> models() {
        return SharedModels.forParameters();
    }

    /** The If models of {@link BranchSelectionTest}: branches decided by a shape or an input value. */
    static List<String> branchModels() {
        return List.of("squeezeByDim", "stateSizeTest", "sampleRateSwitch", "sampleRateSwitchWithRange");
    }

    @ParameterizedTest
    @MethodSource("models")
    void everySharedModelPlansTheSameThroughBothEntryPoints(String model) {
        SharedModels.requirePresent();
        OnnxModel onnx = OnnxModel.read(SharedModels.path(model));
        CompiledModel server = CompiledModel.compile(onnx, ImportOptions.defaults(), PlanOptions.defaults());
        ImportedGraph imp = OnnxImporter.importModel(onnx, ImportOptions.defaults());
        List<Map<String, Long>> cases = cases(imp, DocumentedModels.bindings(model));
        for (Map<String, Long> b : cases) {
            assertSamePlan(model, imp, server, b);
        }
        assertTrue(cases.size() >= 1 + DocumentedModels.bindings(model).size(), model);
    }

    @ParameterizedTest
    @MethodSource("branchModels")
    void everyBranchSelectionModelPlansTheSameThroughBothEntryPoints(String name) {
        OnnxWriter w = switch (name) {
            case "squeezeByDim" -> BranchSelectionTest.squeezeByDim();
            case "stateSizeTest" -> BranchSelectionTest.stateSizeTest();
            case "sampleRateSwitch" -> BranchSelectionTest.sampleRateSwitch(false);
            default -> BranchSelectionTest.sampleRateSwitch(true);
        };
        OnnxModel onnx = OnnxModel.read(name, w.bytes(17));
        CompiledModel server = CompiledModel.compile(onnx, ImportOptions.defaults(), PlanOptions.defaults());
        ImportedGraph imp = OnnxImporter.importModel(onnx, ImportOptions.defaults());
        Map<String, Long> full = new LinkedHashMap<>();
        for (String s : imp.symbols().keySet()) {
            if (!imp.derivedSymbols().containsKey(s)) {
                full.put(s, s.equals("c") ? 1L : 3L); // small shapes; c = 1 takes squeezeByDim's then-branch
            }
        }
        int branchCases = 0;
        for (Map<String, Long> b : cases(imp, full)) {
            assertSamePlan(name, imp, server, b);
            if (imp.valueSymbols().containsKey("sr") && b.size() == full.size()) {
                for (long sr : new long[] {16000, 8000}) {
                    Map<String, Long> withSr = new HashMap<>(b);
                    withSr.putAll(imp.valueBindings(Map.of("sr", new long[] {sr})));
                    assertSamePlan(name + " sr=" + sr, imp, server, withSr);
                    branchCases++;
                }
            }
        }
        assertEquals(imp.valueSymbols().containsKey("sr") ? 2 : 0, branchCases, name);
    }

    @ParameterizedTest
    @MethodSource("models")
    void aBindingAboveTheModelsLimitFailsTheSameThroughBothEntryPoints(String model) {
        SharedModels.requirePresent();
        OnnxModel onnx = OnnxModel.read(SharedModels.path(model));
        CompiledModel server = CompiledModel.compile(onnx, ImportOptions.defaults(), PlanOptions.defaults());
        for (Map.Entry<String, Long> limit : server.limits().entrySet()) {
            Map<String, Long> above = new HashMap<>(DocumentedModels.bindings(model));
            above.put(limit.getKey(), limit.getValue() + 1);
            String viaServer = assertThrows(ModelLimitException.class, () -> server.plan(above)).getMessage();
            String viaCli = assertThrows(ModelLimitException.class,
                    () -> OnnxPlanner.plan(ServerAccess.access().imported(server), above, PlanOptions.defaults())).getMessage();
            assertEquals(viaServer, viaCli, model);
            assertTrue(viaCli.startsWith(limit.getKey() + " = " + (limit.getValue() + 1) + " is above"), viaCli);
        }
    }

    /** No bindings, {@code full}, and {@code full} less each one symbol. */
    private static List<Map<String, Long>> cases(ImportedGraph imp, Map<String, Long> full) {
        List<Map<String, Long>> out = new ArrayList<>();
        out.add(Map.of());
        out.add(full);
        for (String s : full.keySet()) {
            Map<String, Long> less = new HashMap<>(full);
            less.remove(s);
            out.add(less);
        }
        return out;
    }

    private static void assertSamePlan(String model, ImportedGraph imp, CompiledModel server, Map<String, Long> b) {
        String at = model + " at " + b;
        OnnxPlan cli = OnnxPlanner.plan(imp, b, PlanOptions.defaults());
        OnnxPlan served = server.plan(b);
        assertEquals(served.bindings(), cli.bindings(), at);

        // one rule for unbound symbols, computed here on its own: every symbol the model uses that
        // the completed bindings leave out, except derived ones (their free symbols are listed); the
        // model is the one planned, whose If nodes the bindings decide keep their taken branch only
        ImportedGraph decided = imp.forBindings(cli.bindings());
        List<String> expected = decided.symbols().keySet().stream()
                .filter(s -> !cli.bindings().containsKey(s) && !decided.derivedSymbols().containsKey(s)).toList();
        assertEquals(expected, cli.unboundSymbols(), at);
        assertEquals(expected, served.unboundSymbols(), at);

        // control-flow need
        assertEquals(served.admissionBytes(), cli.admissionBytes(), at);
        assertEquals(served.largestTransientNeed(), cli.largestTransientNeed(), at);
        assertEquals(served.upperBoundBranches(), cli.upperBoundBranches(), at);
        assertEquals(served.controlFlow().size(), cli.controlFlow().size(), at);
        for (int i = 0; i < cli.controlFlow().size(); i++) {
            OnnxPlan.NodeNeed c = cli.controlFlow().get(i);
            OnnxPlan.NodeNeed s = served.controlFlow().get(i);
            assertEquals(s.nodeName(), c.nodeName(), at);
            assertEquals(s.bodyPeaks(), c.bodyPeaks(), at);
            assertEquals(s.transientNeed(), c.transientNeed(), at);
            assertBodiesPlanAsThePicturesDo(at, cli, c);
        }

        // the plan
        assertEquals(cli.result() instanceof PlanResult.Complete, served.result() instanceof PlanResult.Complete, at);
        if (cli.result() instanceof PlanResult.Complete) {
            ActivationPlan p = cli.plan();
            ActivationPlan q = served.plan();
            PlanValidator.validate(p);
            PlanValidator.validate(q);
            assertEquals(q.peakBytes(), p.peakBytes(), at);
            assertEquals(q.offsetsByOwner(), p.offsetsByOwner(), at);
        } else {
            assertEquals(((PlanResult.Deferred) served.result()).unknownSizes(),
                    ((PlanResult.Deferred) cli.result()).unknownSizes(), at);
            assertTrue(cli.admissionBytes().isEmpty(), at);
            if (!cli.unboundSymbols().isEmpty()) {
                String message = assertThrows(IllegalStateException.class, cli::plan).getMessage();
                assertEquals(message, assertThrows(IllegalStateException.class, served::plan).getMessage(), at);
                assertTrue(message.contains("bind " + String.join(", ", cli.unboundSymbols())), message);
            }
        }
        assertFalse(cli.unboundSymbols().stream().anyMatch(imp.derivedSymbols()::containsKey), at);
    }

    /**
     * Each body plan the node carries (what {@code Picture.ofOnnx} draws) is the body planned alone,
     * and its peak is the one the node's need says.
     */
    private static void assertBodiesPlanAsThePicturesDo(String at, OnnxPlan plan, OnnxPlan.NodeNeed need) {
        for (ControlFlowNode.Body body : ServerAccess.access().node(need).bodies()) {
            OnnxPlan b = OnnxPlanner.plan(body.graph(), plan.bindings(),
                    PlanOptions.defaults().withIncludeGraphInputs(false));
            OnnxPlan carried = need.bodyPlans().get(body.attribute());
            assertEquals(b.admissionBytes(), carried.admissionBytes(), at + " body " + body.attribute());
            assertEquals(need.bodyPeaks().get(body.attribute()), carried.admissionBytes(), at + " " + body.attribute());
            if (carried.result() instanceof PlanResult.Complete c) {
                PlanValidator.validate(c.plan());
                assertEquals(((PlanResult.Complete) b.result()).plan().offsetsByOwner(), c.plan().offsetsByOwner(), at);
            }
        }
    }
}
