// SPDX-License-Identifier: Apache-2.0
package dev.memplan.testing;

import dev.memplan.ActivationPlan;
import dev.memplan.DataType;
import dev.memplan.EngineUnavailableException;
import dev.memplan.Graph;
import dev.memplan.MemPlan;
import dev.memplan.PlanOptions;
import dev.memplan.Shape;
import dev.memplan.SizeOracle;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.ViewMap;

/**
 * Run in a child JVM by FallbackTest: plans a small chain on the engine of
 * {@code memplan.engine} and prints {@code engine=<name> slots=<n>}, or
 * {@code unavailable=<message>} with exit code 3 when the engine cannot load.
 */
public final class EngineProbe {
    public static final int UNAVAILABLE = 3;

    private EngineProbe() {
    }

    public static void main(String[] args) {
        Graph.Builder b = Graph.builder();
        int prev = b.value("x", DataType.FLOAT32, Shape.of(16));
        b.input(prev);
        for (int i = 0; i < 3; i++) {
            int next = b.value("v" + i, DataType.FLOAT32, Shape.of(16));
            b.node("n" + i, "Relu", new int[] {prev}, new int[] {next});
            prev = next;
        }
        b.output(prev);
        try {
            ActivationPlan plan = MemPlan.plan(b.build(), ViewMap.empty(), SizeOracle.staticShapes(),
                    PlanOptions.defaults().withStrategy(Strategy.SLOTS)).orElseThrow();
            System.out.println("engine=" + plan.engine() + " slots=" + plan.numSlots());
        } catch (EngineUnavailableException e) {
            System.out.println("unavailable=" + e.getMessage());
            System.exit(UNAVAILABLE);
        }
    }
}
