// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanValidator;
import dev.memplan.ActivationPlan;
import dev.memplan.PlanOptions;
import dev.memplan.Schedule;
import dev.memplan.TensorSizes;
import dev.memplan.Value;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Inferred sizes never shrink when a symbol grows, so the plan made at upper bounds holds every
 * request below them: checked on the symbolic shared models at seeded bindings.
 */
class MonotoneSizesTest {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"minilm/all-minilm-l6-v2-q.onnx", "ort-genai/tiny-random-gpt2-fp32_past.onnx",
            "ort-ext/pytorch_super_resolution.onnx", "silero/silero_vad_op18_ifless.onnx"})
    void aPlanAtTheBoundsHoldsEveryRequestBelowThem(String model) {
        SharedModels.assumePresent();
        ImportedGraph imp = OnnxImporter.importModel(OnnxModel.read(SharedModels.path(model)), ImportOptions.defaults());
        Map<String, Long> small = ModelCases.bindings(model);
        Map<String, Long> bounds = new HashMap<>();
        small.forEach((k, v) -> bounds.put(k, v * 8));
        if (model.contains("gpt2")) {
            bounds.put("total_seq_len", bounds.get("past_seq_len") + bounds.get("seq_len"));
        }
        OnnxPlan atBounds = OnnxPlanner.plan(imp, bounds, PlanOptions.defaults());
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
            for (int o = 0; o < s.numOwners(); o++) {
                Value v = imp.graph().value(s.ownerValue(o));
                long need = TensorSizes.bytes(v, below).getAsLong();
                long slot = plan.slots().get(plan.slotOf(v.id())).capacityBytes();
                assertTrue(need <= TensorSizes.bytes(v, bounds).getAsLong(), v.describe() + " shrank at " + below);
                assertTrue(need <= slot, v.describe() + " outgrew its slot at " + below);
            }
        }
    }
}
