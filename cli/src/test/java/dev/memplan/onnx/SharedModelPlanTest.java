// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.onnx.ImportOptions.ViewPolicy;
import dev.memplan.onnx.imports.ControlFlowNode;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.cli.OnnxReport;
import dev.memplan.onnx.imports.ShapeDisagreement;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.memplan.cli.OnnxPlanJson;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.server.OnnxPlan;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import dev.memplan.ActivationPlan;
import dev.memplan.PlanOptions;
import dev.memplan.PlanResult;
import dev.memplan.PlanOptions.Strategy;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every shared model imports and plans at small bindings; every plan passes the checker. */
class SharedModelPlanTest {

    static List<String> models() {
        return SharedModels.forParameters();
    }

    private static ImportedGraph load(String model, ImportOptions options) {
        return OnnxImporter.importModel(OnnxModel.read(SharedModels.path(model)), options);
    }

    static Stream<Arguments> modelsAndStrategies() {
        return models().stream().flatMap(m -> Stream.of(Strategy.values()).map(s -> Arguments.of(m, s)));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("modelsAndStrategies")
    void importsAndPlans(String model, Strategy strategy) {
        SharedModels.requirePresent();
        ImportedGraph imp = load(model, ImportOptions.defaults());
        Map<String, Long> bindings = ModelCases.bindings(model);
        PlanOptions options = PlanOptions.defaults().withStrategy(strategy);
        OnnxPlan plan = OnnxPlanner.plan(imp, bindings, options);
        assertTrue(plan.isComplete(), model + " should plan completely at " + bindings + ": " + plan.result());
        assertEquals(List.of(), plan.unboundSymbols());
        ActivationPlan p = plan.plan();
        PlanValidator.validate(p);
        assertEquals(strategy, p.strategy());
        validateBodies(imp, bindings, options);
        assertTrue(p.peakBytes() <= p.naiveBytes(), "peak <= naive");
        assertTrue(p.lowerBoundBytes() <= p.peakBytes(), "lower bound <= peak");
        assertTrue(plan.admissionBytes().getAsLong() >= p.peakBytes(), "admission >= outer peak");
        assertTrue(imp.graph().nodeCount() > 0);

        ObjectNode json = OnnxPlanJson.toJson(plan);
        assertEquals(plan.schedule().numOwners(), json.get("owners").size());
        for (JsonNode owner : json.get("owners")) {
            assertFalse(owner.get("onnxName").asText().isEmpty(), "every owner has its ONNX name");
            assertTrue(owner.get("bytes").isNumber(), "every owner has a size at the bindings: " + owner);
            assertEquals(p.sizeOf(owner.get("value").asInt()), owner.get("bytes").asLong());
            assertEquals(p.offsetOf(owner.get("value").asInt()), owner.get("offset").asLong());
            assertEquals(strategy == Strategy.SLOTS, owner.has("slot"), "a slot only in a slots plan: " + owner);
        }
        assertEquals(strategy.toString(), json.get("strategy").asText());
        assertEquals(plan.admissionBytes().getAsLong(), json.get("admissionBytes").asLong());
        // the report's "where" of the lower bound holds exactly the lower bound's bytes
        OnnxReport.LivePeak at = OnnxReport.livePeak(plan, 3);
        assertEquals(p.lowerBoundBytes(), at.liveBytes(), model);
        assertEquals(p.lowerBoundBytes(), json.get("lowerBoundAt").get("liveBytes").asLong());
    }

    private static void validateBodies(ImportedGraph imp, Map<String, Long> bindings, PlanOptions options) {
        for (ControlFlowNode cf : imp.controlFlow()) {
            for (ControlFlowNode.Body b : cf.bodies()) {
                PlanResult r = dev.memplan.MemPlan.compile(b.graph().graph(), b.graph().views(), options)
                        .plan(bindings);
                PlanValidator.validate(r.orElseThrow());
                validateBodies(b.graph(), bindings, options);
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void withoutBindingsASymbolicModelIsDeferredNeverZero(String model) {
        SharedModels.requirePresent();
        ImportedGraph imp = load(model, ImportOptions.defaults());
        OnnxPlan plan = OnnxPlanner.plan(imp, Map.of(), PlanOptions.defaults());
        if (imp.symbols().isEmpty()) {
            assertTrue(plan.isComplete(), model + " is static and plans without bindings");
        } else {
            assertFalse(plan.isComplete());
            assertEquals(OptionalLong.empty(), plan.admissionBytes(), "a deferred plan reports no figure, never 0");
            // every symbol but the derived ones (GPT-2's total_seq_len follows from the others)
            assertEquals(imp.symbols().keySet().stream().filter(n -> !imp.derivedSymbols().containsKey(n)).toList(),
                    plan.unboundSymbols());
        }
    }

    /**
     * Where a model ships value_info, inference agrees with it: no disagreement for the models with
     * intermediate shapes, and for the rest every declared dim equals the inferred one at the
     * bindings wherever both can be evaluated.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void inferenceAgreesWithValueInfo(String model) {
        SharedModels.requirePresent();
        ImportedGraph imp = load(model, ImportOptions.defaults());
        if (model.contains("FastestDet") || model.contains("silero") || model.contains("minilm")) {
            assertEquals(List.of(), imp.disagreements(), model + " ships value_info for its intermediates");
            long declared = declaredCount(imp);
            assertTrue(declared > 50, model + ": value_info was read (" + declared + " declared shapes)");
        }
        Map<String, Long> bindings = ModelCases.bindings(model);
        for (ShapeDisagreement d : imp.disagreements()) {
            if (d.declared().rank() != d.inferred().rank()) {
                throw new AssertionError(model + ": " + d);
            }
            for (int i = 0; i < d.declared().rank(); i++) {
                OptionalLong a = d.declared().dims().get(i).evaluate(bindings);
                OptionalLong b = d.inferred().dims().get(i).evaluate(bindings);
                if (a.isPresent() && b.isPresent()) {
                    assertEquals(a.getAsLong(), b.getAsLong(), model + ": " + d);
                }
            }
        }
    }

    /** Values with a declared shape, in the graph and its bodies. */
    private static long declaredCount(ImportedGraph imp) {
        long n = imp.graph().values().stream().filter(v -> imp.declaredShape(v.name()).isPresent()).count();
        for (ControlFlowNode cf : imp.controlFlow()) {
            for (ControlFlowNode.Body b : cf.bodies()) {
                n += declaredCount(b.graph());
            }
        }
        return n;
    }

    @Test
    void foldingTurnsConstantOfShapeWeightsIntoWeights() {
        SharedModels.requirePresent();
        String model = "onnx-light/light_resnet50.onnx";
        ImportedGraph folded = load(model, ImportOptions.defaults());
        ImportedGraph unfolded = load(model, ImportOptions.defaults().withFoldConstants(false));
        assertTrue(folded.foldedBytes() > 100_000_000L, "ResNet-50's weights are built by ConstantOfShape");
        assertEquals(0, unfolded.foldedBytes());
        ActivationPlan a = OnnxPlanner.plan(folded, Map.of(), PlanOptions.defaults()).plan();
        ActivationPlan b = OnnxPlanner.plan(unfolded, Map.of(), PlanOptions.defaults()).plan();
        PlanValidator.validate(a);
        PlanValidator.validate(b);
        assertTrue(b.naiveBytes() > a.naiveBytes() + 100_000_000L,
                "without folding the weights count as activations: " + b.naiveBytes() + " vs " + a.naiveBytes());
        assertTrue(unfolded.graph().nodeCount() > folded.graph().nodeCount());
    }

    @Test
    void viewPoliciesProposeDifferentViews() {
        SharedModels.requirePresent();
        String model = "minilm/all-minilm-l6-v2-q.onnx";
        Map<String, Long> bindings = ModelCases.bindings(model);
        ImportedGraph ort = load(model, ImportOptions.defaults());
        ImportedGraph strided = load(model, ImportOptions.defaults().withViewPolicy(ViewPolicy.STRIDED));
        ImportedGraph none = load(model, ImportOptions.defaults().withViewPolicy(ViewPolicy.NONE));
        assertEquals(0, none.views().size());
        assertTrue(ort.views().size() > 0, "minilm reshapes and unsqueezes");
        assertTrue(strided.views().size() > ort.views().size(), "strided adds its Transposes");
        for (var e : ort.views().edges().entrySet()) {
            String op = ort.graph().node(ort.graph().value(e.getKey()).producer()).opType();
            assertTrue(List.of("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity").contains(op), op);
        }
        long naiveOrt = OnnxPlanner.plan(ort, bindings, PlanOptions.defaults()).plan().naiveBytes();
        long naiveStrided = OnnxPlanner.plan(strided, bindings, PlanOptions.defaults()).plan().naiveBytes();
        long naiveNone = OnnxPlanner.plan(none, bindings, PlanOptions.defaults()).plan().naiveBytes();
        assertTrue(naiveStrided < naiveOrt && naiveOrt < naiveNone, naiveStrided + " < " + naiveOrt + " < " + naiveNone);
        for (ImportedGraph imp : List.of(ort, strided, none)) {
            PlanValidator.validate(OnnxPlanner.plan(imp, bindings, PlanOptions.defaults()).plan());
        }
    }

    @Test
    void symbolsAreTheModelsDimParams() {
        SharedModels.requirePresent();
        ImportedGraph gpt2 = load("ort-genai/tiny-random-gpt2-fp32_past.onnx", ImportOptions.defaults());
        // derived symbols come last: their expressions are written out in the graph's shapes
        assertEquals(List.of("batch_size", "seq_len", "past_seq_len", "total_seq_len"),
                gpt2.symbols().keySet().stream().toList());
        ImportedGraph minilm = load("minilm/all-minilm-l6-v2-q.onnx", ImportOptions.defaults());
        assertEquals(List.of("batch_size", "sequence_length"), minilm.symbols().keySet().stream().toList(),
                "the exporter's unk__ dims resolve to expressions of the input symbols");
        assertNotNull(minilm.graph());
    }
}
