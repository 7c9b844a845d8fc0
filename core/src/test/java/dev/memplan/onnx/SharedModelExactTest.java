// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.EngineMode;
import dev.memplan.Packing;
import dev.memplan.PlanOptions;
import dev.memplan.Schedule;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.server.internal.OnnxPlanner;
import dev.memplan.server.OnnxPlan;
import dev.memplan.testing.PackingChecker;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every shared model's offsets plan, packed exactly: at the lower bound or proven optimal. */
class SharedModelExactTest {

    static List<String> models() {
        return SharedModels.forParameters();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void exactOffsetsPlansAreProvenOptimal(String model) {
        SharedModels.requirePresent();
        ImportedGraph imp = OnnxImporter.importModel(OnnxModel.read(SharedModels.path(model)), ImportOptions.defaults());
        Map<String, Long> bindings = ModelCases.bindings(model);
        OnnxPlan plan = OnnxPlanner.plan(imp, bindings, PlanOptions.defaults().withStrategy(Strategy.OFFSETS));
        assertTrue(plan.isComplete(), model + " should plan completely at " + bindings);
        ActivationPlan p = plan.plan();
        PlanValidator.validate(p);
        Schedule s = (Schedule) p.schedule();
        int owners = s.numOwners();
        long[] lower = new long[owners];
        long[] upper = new long[owners];
        long[] sizes = new long[owners];
        int[] lowerInt = new int[owners];
        int[] upperInt = new int[owners];
        for (int o = 0; o < owners; o++) {
            lowerInt[o] = s.def(o);
            upperInt[o] = s.useEnd(o) + 1;
            lower[o] = lowerInt[o];
            upper[o] = upperInt[o];
            sizes[o] = p.sizeOf(s.ownerValue(o));
        }
        Packing.ExactResult r = Packing.packExact(lower, upper, sizes, Packing.ExactLimits.defaults(),
                EngineMode.fromSystemProperty());
        PackingChecker.check(lowerInt, upperInt, sizes, r.plan().offsets(), r.plan().arenaBytes());
        assertTrue(r.provenOptimal(), model + ": " + r);
        assertTrue(r.plan().arenaBytes() <= p.peakBytes(), model + ": no larger than the offsets plan");
    }
}
