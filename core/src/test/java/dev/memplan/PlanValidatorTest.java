// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static dev.memplan.testing.PlanAssertions.ints;
import static dev.memplan.testing.PlanAssertions.longs;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.Dim.Symbol;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.engine.Allocation;
import dev.memplan.engine.CompiledGraph;
import dev.memplan.engine.OffsetAllocation;
import dev.memplan.validate.PlanValidationException;
import dev.memplan.validate.PlanValidator;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The validator accepts real plans and catches plans corrupted on purpose. Corrupted plans are
 * built through ActivationPlan's package-private constructor from a real plan's buffers, edited.
 */
class PlanValidatorTest {

    /**
     * Order n0, r, n1, n2, n3 (positions 0 to 4): a = n0(x) is 64 bytes; av = r(a) is a view of a,
     * read by n2, so a lives [0, 3]; b = n1(a) [2, 3] and c = n2(av, b) [3, 4] take 32 bytes; the
     * output d = n3(c) [4, 4] takes 16 and reuses b's 32-byte slot (best fit over a's 64).
     */
    private static final class Fixture {
        final int x;
        final int a;
        final int av;
        final int b;
        final int c;
        final int d;
        final Graph graph;
        final ViewMap views;

        Fixture() {
            Graph.Builder gb = Graph.builder();
            x = gb.value("x", DataType.FLOAT32, Shape.of(4));
            a = gb.value("a", DataType.FLOAT32, Shape.of(16));
            av = gb.value("av", DataType.FLOAT32, Shape.of(16));
            b = gb.value("b", DataType.FLOAT32, Shape.of(8));
            c = gb.value("c", DataType.FLOAT32, Shape.of(8));
            d = gb.value("d", DataType.FLOAT32, Shape.of(4));
            gb.input(x);
            gb.node("n0", "Relu", new int[] {x}, new int[] {a});
            gb.node("r", "Reshape", new int[] {a}, new int[] {av});
            gb.node("n1", "Relu", new int[] {a}, new int[] {b});
            gb.node("n2", "Add", new int[] {av, b}, new int[] {c});
            gb.node("n3", "Relu", new int[] {c}, new int[] {d});
            gb.output(d);
            graph = gb.build();
            views = ViewMap.builder().put(av, a).build();
        }

        /** The slots plan the assertions on slot ids below are about. */
        ActivationPlan plan() {
            return MemPlan.plan(graph, views, SizeOracle.staticShapes(), PlanOptions.defaults()
                    .withStrategy(Strategy.SLOTS)).orElseThrow();
        }

        /** The offsets plan of the default options, with {@code alignment}. */
        ActivationPlan offsetsPlan(long alignment) {
            return MemPlan.plan(graph, views, SizeOracle.staticShapes(), PlanOptions.defaults()
                    .withStrategy(Strategy.OFFSETS).withAlignment(alignment)).orElseThrow();
        }

        /**
         * An offsets plan on {@code real}'s schedule with the given arena and offsets of a, b, c, d
         * (64, 32, 32 and 16 bytes live [0, 3], [2, 3], [3, 4], [4, 4]), totals from {@code real}.
         */
        ActivationPlan offsetsPlan(ActivationPlan real, long peak, long offA, long offB, long offC, long offD) {
            Schedule s = (Schedule) real.schedule();
            long[] offsets = new long[s.numOwners()];
            offsets[s.ownerIndexOf(a)] = offA;
            offsets[s.ownerIndexOf(b)] = offB;
            offsets[s.ownerIndexOf(c)] = offC;
            offsets[s.ownerIndexOf(d)] = offD;
            return new ActivationPlan(s, TestPlans.boundOf(s), LongBuffer.wrap(sizesOf(real)), new OffsetAllocation(peak, real.naiveBytes(),
                    real.lowerBoundBytes(), LongBuffer.wrap(offsets).asReadOnlyBuffer()));
        }
    }

    private final Fixture f = new Fixture();

    /** A copy of {@code plan}'s allocation that a test edits before rebuilding the plan. */
    private static final class Edit {
        int numSlots;
        long peak;
        long naive;
        long lowerBound;
        int[] ownerSlots;
        long[] capacities;
        long[] sizes;
    }

    private static ActivationPlan corrupt(ActivationPlan plan, Consumer<Edit> change) {
        Schedule s = (Schedule) plan.schedule();
        Edit e = new Edit();
        e.numSlots = plan.numSlots();
        e.peak = plan.peakBytes();
        e.naive = plan.naiveBytes();
        e.lowerBound = plan.lowerBoundBytes();
        e.ownerSlots = ints(plan.slotsByOwner());
        e.capacities = longs(plan.slotCapacities());
        e.sizes = new long[s.numOwners()];
        for (int o = 0; o < e.sizes.length; o++) {
            e.sizes[o] = plan.sizeOf(s.ownerValue(o));
        }
        change.accept(e);
        Allocation a = new Allocation(e.numSlots, e.peak, e.naive, e.lowerBound, IntBuffer.wrap(e.ownerSlots),
                LongBuffer.wrap(e.capacities));
        return new ActivationPlan(s, TestPlans.boundOf(s), LongBuffer.wrap(e.sizes), a);
    }

    /** Moves owner {@code value} to {@code slot}. */
    private static void move(Edit e, Schedule s, int value, int slot) {
        e.ownerSlots[s.ownerIndexOf(value)] = slot;
    }

    private static PlanValidationException rejects(ActivationPlan plan, String... fragments) {
        PlanValidationException ex = assertThrows(PlanValidationException.class, () -> PlanValidator.validate(plan));
        for (String fragment : fragments) {
            assertTrue(ex.getMessage().contains(fragment), () -> "expected '" + fragment + "' in: " + ex.getMessage());
        }
        return ex;
    }

    /**
     * A plan sized by a wrong rule (one owner a few bytes short, as a size rule that forgot a dim
     * or packed sub-byte types wrongly would give) passes the checks that read sizes from the plan,
     * and fails the one that derives them from the shapes and bindings.
     */
    @Test
    void catchesASizeThatIsNotTheOneItsShapeGives() {
        Graph.Builder gb = Graph.builder();
        int in = gb.value("in", DataType.FLOAT32, Shape.of("batch", 8));
        int bits = gb.value("bits", DataType.INT4, Shape.of("batch", 3));
        int out = gb.value("out", DataType.FLOAT16, Shape.of(Dim.Derived.sum(java.util.List.of(new Symbol("batch")), 1), 2));
        gb.input(in);
        gb.node("pack", "Cast", new int[] {in}, new int[] {bits});
        gb.node("widen", "Cast", new int[] {bits}, new int[] {out});
        gb.output(out);
        Graph graph = gb.build();
        java.util.Map<String, Long> bindings = java.util.Map.of("batch", 3L);
        for (Strategy strategy : Strategy.values()) {
            PlanOptions options = PlanOptions.defaults().withStrategy(strategy).withAlignment(8);
            ActivationPlan right = MemPlan.plan(graph, ViewMap.empty(), SizeOracle.bounded(bindings), options)
                    .orElseThrow();
            assertDoesNotThrow(() -> PlanValidator.validate(right, bindings));
            assertEquals(8, right.sizeOf(bits), "9 int4 elements pack into 5 bytes, aligned to 8");
            assertEquals(16, right.sizeOf(out), "(3 + 1) x 2 float16 elements");
            SizeOracle wrongRule = owner -> owner.id() == bits ? java.util.OptionalLong.of(12)
                    : SizeOracle.bounded(bindings).bytes(owner);
            ActivationPlan wrong = MemPlan.plan(graph, ViewMap.empty(), wrongRule, options).orElseThrow();
            assertDoesNotThrow(() -> PlanValidator.validate(wrong), "the plan is consistent with its own sizes");
            PlanValidationException e = assertThrows(PlanValidationException.class,
                    () -> PlanValidator.validate(wrong, bindings));
            assertTrue(e.getMessage().contains("owner " + graph.value(bits).describe() + " has a planned size of 16"
                    + " bytes, but its shape " + graph.value(bits).shape() + " of " + DataType.INT4
                    + " at the bindings {batch=3} needs 8 (aligned to 8)"), e.getMessage());
        }
    }

    @Test
    void acceptsTheRealPlan() {
        ActivationPlan plan = f.plan();
        assertEquals(3, plan.numSlots());
        assertEquals(plan.slotOf(f.b), plan.slotOf(f.d), "d takes b's slot, the best fit");
        assertEquals(128, plan.peakBytes());
        assertDoesNotThrow(() -> PlanValidator.validate(plan));
        assertDoesNotThrow(() -> PlanValidator.validate(corrupt(plan, e -> { })), "an unedited copy is valid");
    }

    @Test
    void catchesTwoOverlappingOwnersForcedIntoOneSlot() {
        ActivationPlan plan = f.plan();
        // b [2, 3] moved into a's slot while a [0, 3] (extended by its view) is still live.
        ActivationPlan bad = corrupt(plan, e -> move(e, ((Schedule) plan.schedule()), f.b, plan.slotOf(f.a)));
        rejects(bad, "'a' (value 1) [0, 3]", "'b' (value 3) [2, 3]", "share slot " + plan.slotOf(f.a));
    }

    @Test
    void catchesAnOwnerWithoutASlot() {
        ActivationPlan plan = f.plan();
        rejects(corrupt(plan, e -> move(e, ((Schedule) plan.schedule()), f.c, -1)), "owner 'c' (value 4) has no slot");
    }

    @Test
    void catchesAnUnknownSlotId() {
        ActivationPlan plan = f.plan();
        rejects(corrupt(plan, e -> move(e, ((Schedule) plan.schedule()), f.c, 7)), "'c' (value 4) is in slot 7, which does not exist");
    }

    @Test
    void catchesASlotSmallerThanItsOwner() {
        ActivationPlan plan = f.plan();
        int slot = plan.slotOf(f.a);
        ActivationPlan bad = corrupt(plan, e -> {
            e.capacities[slot] = 63; // a needs 64 bytes
            e.peak -= 1;
        });
        rejects(bad, "slot " + slot + " holds 63 bytes, smaller than owner 'a' (value 1) (64 bytes)");
    }

    @Test
    void catchesAViewWithASlot() {
        ActivationPlan plan = f.plan();
        // A schedule that reports the view 'av' as the owner in place of its root 'a'.
        Schedule s = (Schedule) plan.schedule();
        Schedule viewAsOwner = new Schedule(s.graph(), s.views(), s.options(),
                ForwardingCompiledGraph.rootsOf(s),
                new ViewAsOwnerCompiledGraph(s, s.ownerIndexOf(f.a), f.av));
        ActivationPlan bad = new ActivationPlan(viewAsOwner, TestPlans.boundOf(viewAsOwner), LongBuffer.wrap(sizesOf(plan)),
                new Allocation(plan.numSlots(), plan.peakBytes(), plan.naiveBytes(), plan.lowerBoundBytes(),
                        plan.slotsByOwner(), plan.slotCapacities()));
        rejects(bad, "'av' (value 2) owns no buffer (a view of 'a' (value 1))");
    }

    @Test
    void catchesWrongTotals() {
        ActivationPlan plan = f.plan();
        rejects(corrupt(plan, e -> e.peak += 1), "peakBytes is " + (plan.peakBytes() + 1));
        rejects(corrupt(plan, e -> e.naive -= 4), "naiveBytes is " + (plan.naiveBytes() - 4));
        rejects(corrupt(plan, e -> e.lowerBound = plan.peakBytes() + 8), "lowerBoundBytes is " + (plan.peakBytes() + 8));
        rejects(corrupt(plan, e -> e.numSlots = 4), "reports 4 slots but has 3 capacities");
    }

    @Test
    void catchesAWastedSlot() {
        ActivationPlan plan = f.plan();
        ActivationPlan bad = corrupt(plan, e -> {
            e.capacities = Arrays.copyOf(e.capacities, 4);
            e.capacities[3] = 10;
            e.numSlots = 4;
            e.peak += 10;
        });
        rejects(bad, "slot 3 (10 bytes) holds no owner");
    }

    @Test
    void listsEveryProblem() {
        ActivationPlan plan = f.plan();
        ActivationPlan bad = corrupt(plan, e -> {
            move(e, ((Schedule) plan.schedule()), f.b, plan.slotOf(f.a));
            move(e, ((Schedule) plan.schedule()), f.c, -1);
            e.peak = 0;
        });
        PlanValidationException ex = rejects(bad, "has no slot", "share slot", "peakBytes is 0");
        assertTrue(ex.problems().size() >= 3 && ex.totalProblems() == ex.problems().size(), ex.getMessage());
    }

    /**
     * A schedule whose engine reported a's useEnd one position too early: the view av is read by
     * n2 after its root's reported interval ends.
     */
    @Test
    void catchesAViewReadAfterItsRootsReportedIntervalEnds() {
        Schedule real = MemPlan.compile(f.graph, f.views, PlanOptions.defaults().withEngine(EngineMode.JAVA));
        int aOwner = real.ownerIndexOf(f.a);
        CompiledGraph shortened = new ShortenedCompiledGraph(real, aOwner, 2);
        Schedule wrong = new Schedule(f.graph, f.views, real.options(),
                ForwardingCompiledGraph.rootsOf(real), shortened);
        ActivationPlan plan = wrong.plan(SizeOracle.staticShapes()).orElseThrow();
        rejects(plan, "the schedule gives 'a' (value 1) the interval [0, 2]; recomputed: [0, 3]",
                "'av' (value 2) is read by 'n2' (Add, node 3) at position 3 (in the buffer of 'a' (value 1)),"
                        + " outside its buffer's reported interval [0, 2]");
    }

    @Test
    void catchesAWrongOrder() {
        Schedule real = MemPlan.compile(f.graph, f.views, PlanOptions.defaults().withEngine(EngineMode.JAVA));
        CompiledGraph swapped = new JavaCompiledGraphWithOrder(real, new int[] {0, 2, 1, 3, 4});
        Schedule wrong = new Schedule(f.graph, f.views, real.options(),
                ForwardingCompiledGraph.rootsOf(real), swapped);
        rejects(wrong.plan(SizeOracle.staticShapes()).orElseThrow(),
                "order differs from the recomputed one at position 1: 'n1' (Relu, node 2) instead of 'r' (Reshape, node 1)");
    }

    @Test
    void acceptsTheRealOffsetsPlanAndATightHandMadeOne() {
        ActivationPlan plan = f.offsetsPlan(1);
        assertEquals(Strategy.OFFSETS, plan.strategy());
        assertEquals(0, plan.numSlots());
        assertDoesNotThrow(() -> PlanValidator.validate(plan));
        // a [0, 64), b [64, 96), c [96, 128) are all live at position 3; d reuses a's bytes after.
        ActivationPlan tight = f.offsetsPlan(plan, 128, 0, 64, 96, 0);
        assertEquals(128, tight.lowerBoundBytes(), "the fixture's bound, reached");
        assertDoesNotThrow(() -> PlanValidator.validate(tight));
    }

    @Test
    void catchesOverlappingOwnersInAnOffsetsPlan() {
        ActivationPlan plan = f.offsetsPlan(1);
        // b [2, 3] at bytes [32, 64) inside a [0, 64) while both are live.
        rejects(f.offsetsPlan(plan, 128, 0, 32, 96, 0),
                "'a' (value 1) [0, 3] at bytes [0, 64)", "'b' (value 3) [2, 3] at bytes [32, 64)", "share bytes");
        // Two owners at one offset: c [3, 4] and d [4, 4] both at 96.
        rejects(f.offsetsPlan(plan, 128, 0, 64, 96, 96), "'c' (value 4)", "'d' (value 5)", "share bytes");
        // Overlap only at the edge position: a ends at 3 where c starts, c at a's last 16 bytes.
        rejects(f.offsetsPlan(plan, 128, 0, 64, 48, 0), "'a' (value 1)", "'c' (value 4)", "share bytes");
    }

    @Test
    void acceptsOwnersThatTouchButDoNotOverlap() {
        ActivationPlan plan = f.offsetsPlan(1);
        // d [4, 4] at a's bytes: a ended at 3. c directly above b, touching at byte 96.
        assertDoesNotThrow(() -> PlanValidator.validate(f.offsetsPlan(plan, 128, 0, 64, 96, 0)));
        // a directly above b and below c; d at b's bytes after b ended.
        assertDoesNotThrow(() -> PlanValidator.validate(f.offsetsPlan(plan, 160, 64, 0, 128, 0)));
    }

    @Test
    void acceptsAZeroSizeOwnerInsideALiveOne() {
        ActivationPlan real = f.offsetsPlan(1);
        Schedule s = (Schedule) real.schedule();
        long[] sizes = sizesOf(real);
        sizes[s.ownerIndexOf(f.b)] = 0; // b needs no room: it may sit anywhere inside the arena
        long[] offsets = new long[s.numOwners()];
        offsets[s.ownerIndexOf(f.a)] = 0;
        offsets[s.ownerIndexOf(f.b)] = 16;
        offsets[s.ownerIndexOf(f.c)] = 64;
        offsets[s.ownerIndexOf(f.d)] = 0;
        ActivationPlan zero = new ActivationPlan(s, TestPlans.boundOf(s), LongBuffer.wrap(sizes), new OffsetAllocation(96,
                real.naiveBytes() - 32, 96, LongBuffer.wrap(offsets)));
        assertDoesNotThrow(() -> PlanValidator.validate(zero));
    }

    @Test
    void catchesAnOwnerOutsideTheArena() {
        ActivationPlan plan = f.offsetsPlan(1);
        rejects(f.offsetsPlan(plan, 128, 0, 64, 96, 120),
                "owner 'd' (value 5) (16 bytes) at offset 120 ends past the arena of 128 bytes");
        rejects(f.offsetsPlan(plan, 128, 0, 64, -1, 0), "owner 'c' (value 4) has no offset (-1)");
        rejects(f.offsetsPlan(plan, 128, Long.MAX_VALUE - 8, 64, 96, 0), "owner 'a' (value 1) (64 bytes) at offset "
                + (Long.MAX_VALUE - 8) + " ends past the arena");
    }

    @Test
    void catchesAMisalignedOffset() {
        ActivationPlan plan = f.offsetsPlan(16);
        assertEquals(16, plan.schedule().options().alignment());
        assertDoesNotThrow(() -> PlanValidator.validate(f.offsetsPlan(plan, 128, 0, 64, 96, 16)));
        rejects(f.offsetsPlan(plan, 128, 0, 64, 96, 8),
                "owner 'd' (value 5) is at offset 8, not a multiple of the alignment 16");
    }

    @Test
    void catchesAWrongArenaSizeOrTotals() {
        ActivationPlan plan = f.offsetsPlan(1);
        rejects(f.offsetsPlan(plan, 160, 0, 64, 96, 0), "peakBytes is 160 but the owners end at byte 128");
        // An arena below the bound: c ends past it, and the peak is below the bytes live at position 3.
        rejects(f.offsetsPlan(plan, 112, 0, 64, 96, 0), "ends past the arena of 112 bytes",
                "peakBytes 112 is below the 128 bytes live at one position");
        ActivationPlan real = f.offsetsPlan(1);
        Schedule s = (Schedule) real.schedule();
        LongBuffer offsets = real.offsetsByOwner();
        rejects(new ActivationPlan(s, TestPlans.boundOf(s), LongBuffer.wrap(sizesOf(real)), new OffsetAllocation(real.peakBytes(),
                real.naiveBytes() + 1, real.lowerBoundBytes(), offsets)), "naiveBytes is " + (real.naiveBytes() + 1));
        rejects(new ActivationPlan(s, TestPlans.boundOf(s), LongBuffer.wrap(sizesOf(real)), new OffsetAllocation(real.peakBytes(),
                real.naiveBytes(), real.lowerBoundBytes() - 1, offsets)), "lowerBoundBytes is " + (real.lowerBoundBytes() - 1));
    }

    @Test
    void catchesASlotsPlanWhoseSlotsDoNotExistAsOffsets() {
        ActivationPlan plan = f.plan();
        // The slots view of an owner in an unknown slot has no offset either.
        rejects(corrupt(plan, e -> move(e, ((Schedule) plan.schedule()), f.c, 7)), "owner 'c' (value 4) has no offset (-1)");
        // Two overlapping owners in one slot share the slot's bytes too.
        rejects(corrupt(plan, e -> move(e, ((Schedule) plan.schedule()), f.b, plan.slotOf(f.a))), "share bytes");
    }

    /** The planned size of each owner, by owner index. */
    private static long[] sizesOf(ActivationPlan plan) {
        Schedule s = (Schedule) plan.schedule();
        long[] sizes = new long[s.numOwners()];
        for (int o = 0; o < sizes.length; o++) {
            sizes[o] = plan.sizeOf(s.ownerValue(o));
        }
        return sizes;
    }

    private static final class ShortenedCompiledGraph extends ForwardingCompiledGraph {
        private final int owner;
        private final int useEnd;

        ShortenedCompiledGraph(Schedule real, int owner, int useEnd) {
            super(ForwardingCompiledGraph.recompileOnJava(real));
            this.owner = owner;
            this.useEnd = useEnd;
        }

        @Override
        public IntBuffer ownerUseEnds() {
            int[] ends = ints(inner.ownerUseEnds());
            ends[owner] = useEnd;
            return IntBuffer.wrap(ends);
        }
    }

    private static final class ViewAsOwnerCompiledGraph extends ForwardingCompiledGraph {
        private final int owner;
        private final int view;

        ViewAsOwnerCompiledGraph(Schedule real, int owner, int view) {
            super(ForwardingCompiledGraph.recompileOnJava(real));
            this.owner = owner;
            this.view = view;
        }

        @Override
        public IntBuffer ownerValues() {
            int[] values = ints(inner.ownerValues());
            values[owner] = view;
            return IntBuffer.wrap(values);
        }
    }

    private static final class JavaCompiledGraphWithOrder extends ForwardingCompiledGraph {
        private final int[] order;

        JavaCompiledGraphWithOrder(Schedule real, int[] order) {
            super(ForwardingCompiledGraph.recompileOnJava(real));
            this.order = order;
        }

        @Override
        public IntBuffer order() {
            return IntBuffer.wrap(order);
        }
    }
}
