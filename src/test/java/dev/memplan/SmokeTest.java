package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class SmokeTest {
    @Test
    void chainDoubleBuffers() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of(256));
        b.input(x);
        int prev = x;
        for (int i = 0; i < 4; i++) {
            int y = b.value("v" + i, DataType.FLOAT32, Shape.of(256));
            b.node("n" + i, "Relu", new int[] {prev}, new int[] {y});
            prev = y;
        }
        b.output(prev);
        PlanResult r = MemPlan.plan(b.build(), ViewMap.empty(), SizeOracle.staticShapes(), PlanOptions.defaults());
        ActivationPlan p = r.orElseThrow();
        assertEquals(System.getProperty("memplan.engine", "auto").equals("java") ? "java" : "native", p.engine());
        assertEquals(2, p.numSlots());
        assertEquals(2048, p.peakBytes());
        assertEquals(4096, p.naiveBytes());
        assertEquals(0.5, p.savingsRatio());
        assertEquals(2048, p.lowerBoundBytes());
    }
}
