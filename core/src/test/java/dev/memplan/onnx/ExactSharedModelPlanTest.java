// SPDX-License-Identifier: Apache-2.0
package dev.memplan.onnx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.EngineMode;
import dev.memplan.MemPlan;
import dev.memplan.Packing;
import dev.memplan.PlanOptions;
import dev.memplan.Schedule;
import dev.memplan.onnx.imports.ControlFlowNode;
import dev.memplan.onnx.imports.ImportedGraph;
import dev.memplan.onnx.imports.OnnxImporter;
import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.NativeRequirement;
import dev.memplan.testing.PlanAssertions;
import dev.memplan.testing.SharedModels;
import dev.memplan.validate.PlanValidator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Exact offsets plans ({@link PlanOptions#withExact}) of every shared model and its control-flow
 * bodies at the small test bindings: the same plan on both engines owner by owner, each through the
 * validator, each at the lower bound or proven optimal. Picks its engines itself, so it runs once.
 */
@EngineIndependent
class ExactSharedModelPlanTest {
    /** Node limit of every search here: deterministic. */
    static final long NODES = 20_000;

    static List<String> models() {
        return SharedModels.forParameters();
    }

    @BeforeAll
    static void requireNativeUnlessJavaRun() {
        NativeRequirement.requireNativeEngine();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("models")
    void exactPlansAreOptimalValidAndTheSameOnBothEngines(String model) {
        SharedModels.requirePresent();
        ImportedGraph imp = OnnxImporter.importModel(OnnxModel.read(SharedModels.path(model)),
                ImportOptions.defaults());
        PlanOptions options = PlanOptions.defaults().withExact(new Packing.ExactLimits(NODES, Duration.ZERO, -1));
        check(model, imp, ModelCases.bindings(model), options);
    }

    private static void check(String name, ImportedGraph imp, Map<String, Long> bindings, PlanOptions options) {
        Schedule java = MemPlan.compile(imp.graph(), imp.views(), options.withEngine(EngineMode.JAVA));
        Schedule nat = MemPlan.compile(imp.graph(), imp.views(), options.withEngine(EngineMode.NATIVE));
        ActivationPlan j = java.plan(bindings).orElseThrow();
        ActivationPlan n = nat.plan(bindings).orElseThrow();
        PlanAssertions.assertSamePlan(j, n, name);
        assertEquals(j.provenBoundBytes(), n.provenBoundBytes(), name + ": proven bound");
        assertEquals(j.exactStatus(), n.exactStatus(), name + ": status");
        for (ActivationPlan p : new ActivationPlan[] {j, n}) {
            PlanValidator.validate(p);
            assertTrue(p.peakBytes() == p.lowerBoundBytes() || p.provenOptimal(),
                    name + ": at the lower bound or proven optimal, got " + p + " status " + p.exactStatus()
                            + " proven bound " + p.provenBoundBytes());
        }
        for (ControlFlowNode cf : imp.controlFlow()) {
            for (ControlFlowNode.Body b : cf.bodies()) {
                check(name + " body " + b, b.graph(), bindings, options);
            }
        }
    }
}
