// SPDX-License-Identifier: Apache-2.0
package dev.memplan.server;

import dev.memplan.onnx.TestOnnxModels;
import dev.memplan.testing.EngineIndependent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * {@link PlanCache} is linearizable under stress: three threads plan requests of 1 to 5 rows with
 * a bucketing that rounds to even rows and a bound of 2 plans (so plans are evicted while others
 * are read), and every answer must be what the same requests give one after another: the plan at
 * the bucketed bindings, with its peak. Two threads missing at once both plan; either plan may
 * stay, and they are equal. Stress only: model checking would explore the planner and Caffeine
 * inside every operation. Engine-independent: what is checked is the cache, not the engine.
 */
@EngineIndependent
@Param(name = "rows", gen = IntGen.class, conf = "1:5")
public class PlanCacheLincheckTest {
    private static final CompiledModel MODEL = compile();
    private final PlanCache cache = PlanCache.of(MODEL, 2, Bucketing.none().multipleOf("batch", 2));

    private static CompiledModel compile() {
        try {
            Path file = Files.createTempFile("plan-cache-lincheck", ".onnx");
            Files.write(file, TestOnnxModels.mlp("batch", 16, "mlp"));
            CompiledModel model = CompiledModel.compile(file);
            Files.delete(file);
            return model;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Operation
    public String plan(@Param(name = "rows") int rows) {
        OnnxPlan plan = cache.plan(Map.of("batch", (long) rows));
        return plan.bindings() + " peak " + plan.plan().peakBytes();
    }

    @Test
    void isLinearizableUnderStress() {
        new StressOptions().iterations(8).invocationsPerIteration(100).threads(3).actorsPerThread(3)
                .check(getClass());
    }
}
