// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.PlanOptions;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.server.OnnxPlan;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import dev.memplan.Schedule;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.Graph.Value;
import dev.memplan.testing.ArenaOverlaps;
import dev.memplan.testing.PlanAssertions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Inferred sizes never shrink when a symbol grows, so the plan made at upper bounds holds every
 * request below them: checked on the symbolic shared models at seeded bindings.
 */
class MonotoneSizesTest {

    static Stream<Arguments> modelsAndStrategies() {
        return Stream.of("minilm/all-minilm-l6-v2-q.onnx", "ort-genai/tiny-random-gpt2-fp32_past.onnx",
                        "ort-ext/pytorch_super_resolution.onnx", "silero/silero_vad_op18_ifless.onnx")
                .flatMap(m -> Stream.of(Strategy.values()).map(s -> Arguments.of(m, s)));
    }

    /**
     * Slots: every owner still fits its slot. Offsets: the bounds plan's offsets with the smaller
     * request's sizes still form a valid arena, checked pair by pair by {@link ArenaOverlaps}.
     */
    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("modelsAndStrategies")
    void aPlanAtTheBoundsHoldsEveryRequestBelowThem(String model, Strategy strategy) {
        SharedModels.requirePresent();
        ImportedGraph imp = OnnxImporter.importModel(OnnxModel.read(SharedModels.path(model)), ImportOptions.defaults());
        Map<String, Long> small = ModelCases.bindings(model);
        Map<String, Long> bounds = new HashMap<>();
        small.forEach((k, v) -> bounds.put(k, v * 8));
        if (model.contains("gpt2")) {
            bounds.put("total_seq_len", bounds.get("past_seq_len") + bounds.get("seq_len"));
        }
        OnnxPlan atBounds = OnnxPlanner.plan(imp, bounds, PlanOptions.defaults().withStrategy(strategy));
        ActivationPlan plan = atBounds.plan();
        PlanValidator.validate(plan);
        Schedule s = atBounds.schedule();
        Random r = new Random(model.hashCode());
        for (int trial = 0; trial < 25; trial++) {
            Map<String, Long> below = new HashMap<>();
            for (String sym : List.copyOf(bounds.keySet())) {
                long lo = small.get(sym);
                below.put(sym, lo + (long) (r.nextDouble() * (bounds.get(sym) - lo + 1)));
            }
            if (model.contains("gpt2")) {
                below.put("total_seq_len", below.get("past_seq_len") + below.get("seq_len"));
            }
            long[] sizes = new long[s.numOwners()];
            for (int o = 0; o < s.numOwners(); o++) {
                Value v = imp.graph().value(s.ownerValue(o));
                long need = v.bytesAt(below).getAsLong();
                sizes[o] = need;
                assertTrue(need <= v.bytesAt(bounds).getAsLong(), v.describe() + " shrank at " + below);
                if (strategy == Strategy.SLOTS) {
                    long slot = plan.slots().get(plan.slotOf(v.id())).capacityBytes();
                    assertTrue(need <= slot, v.describe() + " outgrew its slot at " + below);
                }
            }
            int[] def = new int[s.numOwners()];
            int[] useEnd = new int[s.numOwners()];
            for (int o = 0; o < def.length; o++) {
                def[o] = s.def(o);
                useEnd[o] = s.useEnd(o);
            }
            Optional<String> problem = ArenaOverlaps.firstProblem(def, useEnd,
                    PlanAssertions.longs(plan.offsetsByOwner()), sizes, plan.peakBytes());
            assertTrue(problem.isEmpty(), () -> "the bounds plan's offsets at " + below + ": " + problem.get());
        }
    }
}
