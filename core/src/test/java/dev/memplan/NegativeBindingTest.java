// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The documented exceptions of {@link Schedule#plan(Map)} and
 * {@link Admission}: a negative binding is an {@link InvalidSizeException} naming the symbol, and
 * a size that overflows only at a large probe does not fit any budget.
 */
class NegativeBindingTest {

    private static Schedule schedule() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of("seq", 1L << 20));
        int y = b.value("y", DataType.FLOAT32, Shape.of("seq", 1L << 20));
        b.input(x);
        b.node("relu", "Relu", new int[] {x}, new int[] {y});
        b.output(y);
        return MemPlan.compile(b.build(), ViewMap.empty(), PlanOptions.defaults());
    }

    @Test
    void aNegativeBindingIsAnInvalidSize() {
        Schedule s = schedule();
        InvalidSizeException e = assertThrows(InvalidSizeException.class, () -> s.plan(Map.of("seq", -1L)));
        assertTrue(e.getMessage().contains("'seq'") && e.getMessage().contains("-1"), e::getMessage);
        assertThrows(InvalidSizeException.class, () -> s.peakAtBounds(Map.of("seq", -3L)));
        // an unused symbol bound negative is still a mistake worth naming
        assertThrows(InvalidSizeException.class, () -> s.plan(Map.of("seq", 2L, "other", -1L)));
    }

    @Test
    void admissionTreatsAnOverflowingProbeAsNotFitting() {
        Schedule s = schedule();
        // y is seq * 4 MiB: at the probe seq = 2^50 that overflows a long; the search must not fail
        long fits = Admission.largestFitting(s, "seq", Map.of(), 1L << 40, 1L << 50).orElseThrow();
        assertEquals(1L << 18, fits);
        assertEquals(1L << 40, Admission.peakAt(s, "seq", Map.of(), fits));
    }
}
