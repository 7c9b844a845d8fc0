// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions.Strategy;
import dev.memplan.validate.PlanValidator;
import java.util.OptionalLong;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Schedule#plan(long[])}, the server's hot path, on the engine of this run: the engine
 * checks, rounds and copies the sizes (the native one in one pass of C++), so the plan must be the
 * one the size oracle gives for the same sizes, the caller's array must stay as it was, and a
 * size refused must name its value with the same words as the oracle's path.
 */
class OwnerSizesArrayTest {

    /** {@code n} values v1..vn, each node adding the last value to an earlier one drawn by {@code rng}. */
    private static Graph graph(int n, Random rng) {
        Graph.Builder b = Graph.builder();
        int[] ids = new int[n + 1];
        ids[0] = b.value("x", DataType.UINT8, Shape.of("s"));
        b.input(ids[0]);
        for (int i = 1; i <= n; i++) {
            ids[i] = b.value("v" + i, DataType.UINT8, Shape.of("s"));
            b.node("n" + i, "Add", new int[] {ids[i - 1], ids[rng.nextInt(i)]}, new int[] {ids[i]});
        }
        b.output(ids[n]);
        return b.build();
    }

    static Stream<Arguments> cases() {
        return Stream.of(1L, 3L, 64L, 1000L).flatMap(alignment -> Stream.of(Strategy.SLOTS, Strategy.OFFSETS)
                .map(strategy -> Arguments.of(alignment, strategy)));
    }

    @ParameterizedTest(name = "alignment {0}, {1}")
    @MethodSource("cases")
    void arraySizesPlanAsTheOracleDoes(long alignment, Strategy strategy) {
        PlanOptions options = PlanOptions.defaults().withAlignment(alignment).withStrategy(strategy);
        for (int seed = 0; seed < 20; seed++) {
            Random rng = new Random(seed);
            Schedule s = MemPlan.compile(graph(1 + rng.nextInt(60), rng), ViewMap.empty(), options);
            long[] sizes = new long[s.numOwners()];
            for (int o = 0; o < sizes.length; o++) {
                sizes[o] = rng.nextInt(4) == 0 ? 0 : rng.nextInt(5000);
            }
            long[] before = sizes.clone();
            ActivationPlan fromArray = s.plan(sizes);
            assertArrayEquals(before, sizes, "the caller's sizes were changed");
            PlanValidator.validate(fromArray);
            long[] byValue = new long[s.graph().valueCount()];
            for (int o = 0; o < sizes.length; o++) {
                byValue[s.ownerValue(o)] = sizes[o];
            }
            PlanResult viaOracle = s.plan(v -> OptionalLong.of(byValue[v.id()]));
            ActivationPlan fromOracle = ((PlanResult.Complete) viaOracle).plan();
            assertEquals(fromOracle.peakBytes(), fromArray.peakBytes(), "seed " + seed);
            for (int o = 0; o < sizes.length; o++) {
                int v = s.ownerValue(o);
                long rounded = (sizes[o] + alignment - 1) / alignment * alignment;
                assertEquals(rounded, fromArray.sizeOf(v), "seed " + seed + " owner " + o);
                assertEquals(fromOracle.offsetOf(v), fromArray.offsetOf(v), "seed " + seed + " owner " + o);
            }
        }
    }

    @ParameterizedTest(name = "alignment {0}, {1}")
    @MethodSource("cases")
    void aRefusedSizeNamesItsValue(long alignment, Strategy strategy) {
        // Four values, four owners (no in-place reuse), whatever the strategy.
        Schedule s = MemPlan.compile(graph(4, new Random(1)), ViewMap.empty(),
                PlanOptions.defaults().withAlignment(alignment).withStrategy(strategy).withInPlace(false));
        assertEquals(4, s.numOwners());
        String second = "'" + s.graph().value(s.ownerValue(1)).name() + "'";
        InvalidSizeException negative = assertThrows(InvalidSizeException.class,
                () -> s.plan(new long[] {8, -3, -4, 1}));
        assertTrue(negative.getMessage().contains(second + " (value " + s.ownerValue(1) + ") a negative size (-3 bytes)"),
                negative.getMessage());
        InvalidSizeException total = assertThrows(InvalidSizeException.class,
                () -> s.plan(new long[] {0, Long.MAX_VALUE / 2, Long.MAX_VALUE / 2 + 2, 0}));
        String third = "'" + s.graph().value(s.ownerValue(2)).name() + "'";
        assertTrue(total.getMessage().contains("the total of the owner sizes overflows a 64-bit byte count at " + third),
                total.getMessage());
        if (alignment > 1) {
            InvalidSizeException unaligned = assertThrows(InvalidSizeException.class,
                    () -> s.plan(new long[] {0, Long.MAX_VALUE, 0, 0}));
            assertTrue(unaligned.getMessage().contains(second) && unaligned.getMessage().contains("aligned to " + alignment),
                    unaligned.getMessage());
        }
    }
}
