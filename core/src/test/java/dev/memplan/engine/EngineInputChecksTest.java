// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions;
import dev.memplan.testing.EngineIndependent;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The public engine classes check what they are given as the native boundary
 * always did, on both engines: negative and overflowing sizes, and inconsistent graph arrays, are
 * exceptions, never a wrapped total.
 */
@EngineIndependent
class EngineInputChecksTest {

    static Stream<PlanningEngine> engines() {
        List<PlanningEngine> engines = new ArrayList<>(List.of(JavaEngine.INSTANCE));
        NativeEngine.instance().ifPresent(engines::add);
        return engines.stream();
    }

    /** x (input) -> n0 -> a -> n1 -> b (output): two owners. */
    private static CompiledGraph chain(PlanningEngine engine) {
        FlatGraph g = new FlatGraph(3, 2, new int[] {0, 1, 2}, new int[] {0, 1}, new int[] {0, 1, 2},
                new int[] {1, 2}, new int[] {FlatGraph.GRAPH_INPUT, 0, FlatGraph.GRAPH_OUTPUT});
        return engine.compile(g, new int[] {0, 1, 2}, false);
    }

    @ParameterizedTest
    @MethodSource("engines")
    void negativeSizesAreRejected(PlanningEngine engine) {
        CompiledGraph g = chain(engine);
        assertThrows(IllegalArgumentException.class, () -> g.allocate(LongBuffer.wrap(new long[] {8, -1})));
        assertThrows(IllegalArgumentException.class,
                () -> g.allocateOffsets(LongBuffer.wrap(new long[] {-8, 1}), 0));
    }

    @ParameterizedTest
    @MethodSource("engines")
    void overflowingSizesAreRejected(PlanningEngine engine) {
        CompiledGraph g = chain(engine);
        assertThrows(ArithmeticException.class,
                () -> g.allocate(LongBuffer.wrap(new long[] {Long.MAX_VALUE, Long.MAX_VALUE})));
        assertThrows(ArithmeticException.class,
                () -> g.allocateOffsets(LongBuffer.wrap(new long[] {Long.MAX_VALUE, 2}), 0));
        // in range, it still plans
        assertEquals(24, g.allocate(LongBuffer.wrap(new long[] {16, 8})).peakBytes());
    }

    @ParameterizedTest
    @MethodSource("engines")
    void anOverlappingSeedIsRejectedEvenAtTheLiveBound(PlanningEngine engine) {
        // Two 4-byte buffers alive together at time 1: the seed's height 8 is the live bound, so
        // no search runs; buffer 1 still sits on buffer 0's last two bytes.
        long[] lower = {0, 1};
        long[] upper = {2, 3};
        long[] sizes = {4, 4};
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> engine.packExact(lower, upper, sizes, new long[] {2, 4}, 100, 0, ExactPacking.NO_TARGET));
        assertTrue(e.getMessage().startsWith("the seed plan puts buffer 1 on bytes of a buffer alive with it"),
                engine.name() + ": " + e.getMessage());
        assertEquals(8, engine.packExact(lower, upper, sizes, new long[] {4, 0}, 100, 0, ExactPacking.NO_TARGET)
                .heightBytes());
    }

    @ParameterizedTest
    @MethodSource("engines")
    void aTimeLimitPastTheLongestIsRejected(PlanningEngine engine) {
        // a deadline this far ahead would overflow the clock's nanoseconds (undefined in C++)
        long[] lower = {0, 1};
        long[] upper = {2, 3};
        long[] sizes = {4, 4};
        long[] seed = {0, 4};
        assertThrows(IllegalArgumentException.class, () -> engine.packExact(lower, upper, sizes, seed, 100,
                ExactPacking.MAX_TIME_LIMIT_MILLIS + 1, ExactPacking.NO_TARGET));
        assertThrows(IllegalArgumentException.class, () -> engine.packExact(lower, upper, sizes, seed, 100,
                Long.MAX_VALUE, ExactPacking.NO_TARGET));
        assertEquals(8, engine.packExact(lower, upper, sizes, seed, 100, ExactPacking.MAX_TIME_LIMIT_MILLIS,
                ExactPacking.NO_TARGET).heightBytes());
    }

    @ParameterizedTest
    @MethodSource("engines")
    void effortOutsideItsRangeIsRejected(PlanningEngine engine) {
        CompiledGraph g = chain(engine);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> g.allocateOffsets(LongBuffer.wrap(new long[] {8, 8}), -1));
        assertEquals("effort must be in [0, 1000], got -1", e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> engine.packOffsets(2, new int[] {0}, new int[] {1}, new long[] {8}, -1));
        assertThrows(IllegalArgumentException.class,
                () -> g.allocateOffsets(LongBuffer.wrap(new long[] {8, 8}), PlanOptions.MAX_EFFORT + 1));
        assertThrows(IllegalArgumentException.class, () -> engine.packOffsets(2, new int[] {0}, new int[] {1},
                new long[] {8}, Integer.MAX_VALUE));
        assertEquals(16, g.allocateOffsets(LongBuffer.wrap(new long[] {8, 8}), PlanOptions.MAX_EFFORT).peakBytes());
        // effort 0 (the sweep alone) still plans
        assertEquals(16, g.allocateOffsets(LongBuffer.wrap(new long[] {8, 8}), 0).peakBytes());
    }

    @ParameterizedTest
    @MethodSource("engines")
    void inconsistentGraphArraysAreRejected(PlanningEngine engine) {
        FlatGraph outOfRange = new FlatGraph(3, 2, new int[] {0, 1, 2}, new int[] {0, 7}, new int[] {0, 1, 2},
                new int[] {1, 2}, new int[] {FlatGraph.GRAPH_INPUT, 0, FlatGraph.GRAPH_OUTPUT});
        assertThrows(IllegalArgumentException.class, () -> engine.compile(outOfRange, new int[] {0, 1, 2}, false));
        FlatGraph ok = new FlatGraph(3, 2, new int[] {0, 1, 2}, new int[] {0, 1}, new int[] {0, 1, 2},
                new int[] {1, 2}, new int[] {FlatGraph.GRAPH_INPUT, 0, FlatGraph.GRAPH_OUTPUT});
        assertThrows(IllegalArgumentException.class, () -> engine.compile(ok, new int[] {0, 9, 2}, false));
    }
}
