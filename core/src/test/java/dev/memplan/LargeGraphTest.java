// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions.Strategy;
import dev.memplan.validate.PlanValidator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Nothing recurses over the graph: a 1,000,000-node chain plans and validates quickly, with either
 * strategy (the offsets validator's sweep included).
 */
class LargeGraphTest {
    private static final int NODES = 1_000_000;

    @Test
    @Timeout(60) // about 4 s unloaded; generous for a shared 2-core machine
    void aMillionNodeChainPlansInTwoSlots() {
        Graph g = chain();
        Schedule s = MemPlan.compile(g, ViewMap.empty(), PlanOptions.defaults().withStrategy(Strategy.SLOTS));
        ActivationPlan plan = s.plan(SizeOracle.staticShapes()).orElseThrow();
        assertEquals(NODES, s.numOwners());
        assertEquals(2, plan.numSlots());
        assertEquals(2 * 1024, plan.peakBytes());
        assertEquals((long) NODES * 1024, plan.naiveBytes());
        assertEquals(0, plan.slotOf(1));
        assertEquals(1, plan.slotOf(NODES));
        PlanValidator.validate(plan);
    }

    @Test
    @Timeout(60)
    void aMillionNodeChainPlansAndValidatesWithOffsets() {
        Graph g = chain();
        Schedule s = MemPlan.compile(g, ViewMap.empty(), PlanOptions.defaults().withStrategy(Strategy.OFFSETS));
        ActivationPlan plan = s.plan(SizeOracle.staticShapes()).orElseThrow();
        assertEquals(Strategy.OFFSETS, plan.strategy());
        assertEquals(NODES, s.numOwners());
        assertEquals(2 * 1024, plan.lowerBoundBytes(), "two neighbours live at each position");
        assertTrue(plan.peakBytes() >= plan.lowerBoundBytes());
        assertEquals((long) NODES * 1024, plan.naiveBytes());
        PlanValidator.validate(plan);
    }

    private static Graph chain() {
        Graph.Builder b = Graph.builder();
        Shape shape = Shape.of(256);
        int prev = b.value("x", DataType.FLOAT32, shape);
        b.input(prev);
        int[] in = new int[1];
        int[] out = new int[1];
        for (int i = 0; i < NODES; i++) {
            int next = b.value(null, DataType.FLOAT32, shape);
            in[0] = prev;
            out[0] = next;
            b.node(null, "Relu", in, out);
            prev = next;
        }
        b.output(prev);
        return b.build();
    }
}
