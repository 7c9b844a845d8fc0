// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.Graph.Value;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.engine.Allocation;
import dev.memplan.engine.CompiledGraph;
import dev.memplan.engine.JavaEngine;
import dev.memplan.engine.OffsetAllocation;
import dev.memplan.generate.GeneratedGraph;
import dev.memplan.generate.TransformerConfig;
import dev.memplan.generate.TransformerGenerator;
import dev.memplan.generate.UNetGenerator;
import dev.memplan.testing.ArenaOverlaps;
import dev.memplan.testing.PlanAssertions;
import dev.memplan.validate.PlanValidator;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Admission stays sound with offsets (docs/design.md §5b and §6): the plan made at the bounds, with its
 * offsets kept, holds every smaller request; and {@link Admission#largestFitting} never answers a
 * value whose own plan does not fit, even when a planner's peak is not monotone in the symbol.
 */
class AdmissionTest {

    static Stream<Arguments> modelsAndBounds() {
        return Stream.of(
                Arguments.of(TransformerGenerator.build(TransformerConfig.gpt2Small().withLayers(2)),
                        Map.of("batch", 2L, "seq", 96L)),
                Arguments.of(UNetGenerator.build(3, 2, 1), Map.of("batch", 2L, "height", 64L, "width", 48L)));
    }

    /**
     * Plans at the bounds, then for seeded smaller bindings takes the bounds plan's offsets with
     * the smaller request's sizes and checks, pair by pair, that no two live owners share a byte
     * and all fit in the bounds arena.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("modelsAndBounds")
    void theOffsetsOfThePlanAtTheBoundsHoldEverySmallerRequest(GeneratedGraph model, Map<String, Long> bounds) {
        Schedule s = model.compile(PlanOptions.defaults().withStrategy(Strategy.OFFSETS).withAlignment(16));
        ActivationPlan atBounds = s.plan(bounds).orElseThrow();
        PlanValidator.validate(atBounds);
        long[] offsets = PlanAssertions.longs(atBounds.offsetsByOwner());
        int[] def = new int[s.numOwners()];
        int[] useEnd = new int[s.numOwners()];
        for (int o = 0; o < def.length; o++) {
            def[o] = s.def(o);
            useEnd[o] = s.useEnd(o);
        }
        Random r = new Random(bounds.hashCode());
        for (int trial = 0; trial < 20; trial++) {
            Map<String, Long> smaller = new HashMap<>();
            bounds.forEach((sym, max) -> smaller.put(sym, 1 + (long) (r.nextDouble() * max)));
            long[] sizes = new long[s.numOwners()];
            for (int o = 0; o < sizes.length; o++) {
                Value v = s.graph().value(s.ownerValue(o));
                long bytes = v.bytesAt(smaller).getAsLong();
                sizes[o] = (bytes + 15) / 16 * 16; // the schedule's alignment
                assertTrue(sizes[o] <= atBounds.sizeOf(v.id()), v.describe() + " grew below the bounds at " + smaller);
            }
            Optional<String> problem = ArenaOverlaps.firstProblem(def, useEnd, offsets, sizes, atBounds.peakBytes());
            assertTrue(problem.isEmpty(), () -> "at " + smaller + ": " + problem.get());
        }
    }

    /**
     * A planner whose peak jumps at every fifth length (a valid but wasteful arena there): the
     * binary search meets a non-monotone peak. Over every budget and range, the answer's own plan
     * fits the budget (and validates), the next length does not, and "empty" means 1 does not fit.
     */
    @Test
    void largestFittingNeverAnswersALengthWhoseOwnPlanDoesNotFit() {
        Schedule s = zigzagSchedule();
        boolean nonMonotone = false;
        for (long seq = 1; seq < 40; seq++) {
            nonMonotone |= Admission.peakAt(s, "seq", Map.of(), seq) > Admission.peakAt(s, "seq", Map.of(), seq + 1);
        }
        assertTrue(nonMonotone, "the fixture's peak must go down somewhere");
        int answers = 0;
        for (long max = 1; max <= 40; max++) {
            for (long budget = 0; budget <= 200; budget += 4) {
                OptionalLong found = Admission.largestFitting(s, "seq", Map.of(), budget, max);
                if (found.isEmpty()) {
                    assertTrue(Admission.peakAt(s, "seq", Map.of(), 1) > budget, "1 fits " + budget + " but no answer");
                    continue;
                }
                long seq = found.getAsLong();
                answers++;
                assertTrue(seq >= 1 && seq <= max, "answer " + seq + " inside [1, " + max + "]");
                ActivationPlan own = s.plan(Map.of("seq", seq)).orElseThrow();
                PlanValidator.validate(own);
                assertTrue(own.peakBytes() <= budget, "answer " + seq + " needs " + own.peakBytes() + " > budget " + budget);
                if (seq < max) {
                    assertTrue(Admission.peakAt(s, "seq", Map.of(), seq + 1) > budget,
                            "the search stops where the next length does not fit: " + seq + " at " + budget);
                }
            }
        }
        assertTrue(answers > 1000, "most budgets have an answer: " + answers);
    }

    /**
     * x [seq] -> Relu -> y [seq] (4 * seq bytes, the one owner), on a compiled graph that moves
     * every offset up by 1 MiB when seq is a multiple of 5.
     */
    private static Schedule zigzagSchedule() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of("seq"));
        int y = b.value("y", DataType.FLOAT32, Shape.of("seq"));
        b.input(x);
        b.node("relu", "Relu", new int[] {x}, new int[] {y});
        b.output(y);
        Graph g = b.build();
        PlanOptions options = PlanOptions.defaults().withStrategy(Strategy.OFFSETS).withEngine(EngineMode.JAVA);
        Schedule real = MemPlan.compile(g, ViewMap.empty(), options);
        CompiledGraph inner = ForwardingCompiledGraph.recompileOnJava(real);
        return new Schedule(g, ViewMap.empty(), options, ForwardingCompiledGraph.rootsOf(real),
                new ZigzagCompiledGraph(inner));
    }

    /** Delegates everything; offsets plans of a multiple-of-5 length are shifted up by 1 MiB. */
    private static final class ZigzagCompiledGraph extends ForwardingCompiledGraph {
        private static final long SHIFT = 1L << 20;

        ZigzagCompiledGraph(CompiledGraph inner) {
            super(inner);
        }

        @Override
        public OffsetAllocation allocateOffsets(LongBuffer ownerSizes, int effort) {
            OffsetAllocation a = inner.allocateOffsets(ownerSizes, effort);
            long seq = a.naiveBytes() / 4;
            if (seq % 5 != 0) {
                return a;
            }
            long[] shifted = PlanAssertions.longs(a.ownerOffsets());
            for (int o = 0; o < shifted.length; o++) {
                shifted[o] += SHIFT;
            }
            return new OffsetAllocation(a.peakBytes() + SHIFT, a.naiveBytes(), a.lowerBoundBytes(),
                    LongBuffer.wrap(shifted).asReadOnlyBuffer());
        }
    }

    @Test
    void theBudgetAnswerOfTheDefaultOptionsUsesOffsets() {
        Schedule s = TransformerGenerator.build(TransformerConfig.gpt2Small().withLayers(2))
                .compile(PlanOptions.defaults());
        assertEquals(Strategy.OFFSETS, s.options().strategy());
        long budget = Admission.peakAt(s, "seq", Map.of("batch", 1L), 300);
        long found = Admission.largestFitting(s, "seq", Map.of("batch", 1L), budget, 4096).getAsLong();
        ActivationPlan own = s.plan(Map.of("batch", 1L, "seq", found)).orElseThrow();
        assertEquals(Strategy.OFFSETS, own.strategy());
        PlanValidator.validate(own);
        assertTrue(own.peakBytes() <= budget);
    }
}
