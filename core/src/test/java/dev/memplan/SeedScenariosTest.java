// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.PlanOptions.Strategy;
import dev.memplan.engine.Allocation;
import dev.memplan.validate.PlanValidationException;
import dev.memplan.validate.PlanValidator;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The scenarios of the seed's own test suite, restated with slots worked out by hand (on the
 * engine of {@code memplan.engine}). Every value is 256 float32s (1 KiB) unless said otherwise;
 * positions are order positions; best fit picks the smallest free capacity, then the lowest id.
 */
class SeedScenariosTest {
    /** The seed's scenarios are about slots: every plan here requests them. */
    private static final PlanOptions SLOTS = PlanOptions.defaults().withStrategy(Strategy.SLOTS);

    private static final int KIB = 1024;

    /** A builder with a graph input x of 1 KiB; values added through {@link #v} are 1 KiB too. */
    private static final class G {
        final Graph.Builder b = Graph.builder();
        final int x;

        G() {
            x = v("x");
            b.input(x);
        }

        int v(String name) {
            return b.value(name, DataType.FLOAT32, Shape.of(256));
        }

        int node(String name, int[] inputs, int... outputs) {
            return b.node(name, "Op", inputs, outputs);
        }

        /** n0..n{k-1}: x -> v0 -> ... -> v{k-1}; returns the value ids. */
        int[] chain(int k) {
            int[] vs = new int[k];
            int prev = x;
            for (int i = 0; i < k; i++) {
                vs[i] = v("v" + i);
                node("n" + i, new int[] {prev}, vs[i]);
                prev = vs[i];
            }
            return vs;
        }
    }

    private static ActivationPlan planStatic(Graph g, ViewMap views, PlanOptions options) {
        ActivationPlan plan = MemPlan.plan(g, views, SizeOracle.staticShapes(), options).orElseThrow();
        PlanValidator.validate(plan);
        return plan;
    }

    private static ActivationPlan planStatic(Graph g) {
        return planStatic(g, ViewMap.empty(), SLOTS);
    }

    private static void assertSlots(ActivationPlan plan, int[] values, int... slots) {
        for (int i = 0; i < values.length; i++) {
            assertEquals(slots[i], plan.slotOf(values[i]), "slot of value " + values[i]);
        }
    }

    private static void assertInterval(ActivationPlan plan, int value, int def, int useEnd) {
        Schedule s = (Schedule) plan.schedule();
        int o = s.ownerIndexOf(value);
        assertTrue(o >= 0, "value " + value + " owns a slot");
        assertEquals(def, s.def(o), "def of value " + value);
        assertEquals(useEnd, s.useEnd(o), "useEnd of value " + value);
    }

    @Test
    void linearChainDoubleBuffers() {
        // v_i lives [i, i+1]: v0 -> s0, v1 -> s1, then v2 takes s0 (freed after position 1), v3 s1.
        G g = new G();
        int[] v = g.chain(4);
        g.b.output(v[3]);
        ActivationPlan plan = planStatic(g.b.build());
        assertSlots(plan, v, 0, 1, 0, 1);
        assertEquals(List.of(new ActivationPlan.Slot(0, KIB), new ActivationPlan.Slot(1, KIB)), plan.slots());
        assertEquals(2, plan.numSlots());
        assertEquals(2 * KIB, plan.peakBytes());
        assertEquals(4 * KIB, plan.naiveBytes());
        assertEquals(0.5, plan.savingsRatio());
        assertEquals(2 * KIB, plan.lowerBoundBytes());
    }

    @Test
    void diamond() {
        // a = n0(x) [0, 2]; b = n1(a) [1, 3]; c = n2(a) [2, 3]; d = n3(b, c) [3, 3].
        // a s0, b s1, c s2 (a is still live at 2), then a's s0 is free for d.
        G g = new G();
        int a = g.v("a");
        int b = g.v("b");
        int c = g.v("c");
        int d = g.v("d");
        g.node("n0", new int[] {g.x}, a);
        g.node("n1", new int[] {a}, b);
        g.node("n2", new int[] {a}, c);
        g.node("n3", new int[] {b, c}, d);
        g.b.output(d);
        ActivationPlan plan = planStatic(g.b.build());
        assertInterval(plan, a, 0, 2);
        assertInterval(plan, b, 1, 3);
        assertSlots(plan, new int[] {a, b, c, d}, 0, 1, 2, 0);
        assertEquals(3 * KIB, plan.peakBytes());
        assertEquals(3 * KIB, plan.lowerBoundBytes());
    }

    @Test
    void residualSkipPinsItsSource() {
        // a = n0(x) is read again by n3: a [0, 3] keeps s0 to the end; b [1, 2] s1, c [2, 3] s2,
        // d = n3(c, a) takes b's freed s1, never a's.
        G g = new G();
        int a = g.v("a");
        int b = g.v("b");
        int c = g.v("c");
        int d = g.v("d");
        g.node("n0", new int[] {g.x}, a);
        g.node("n1", new int[] {a}, b);
        g.node("n2", new int[] {b}, c);
        g.node("n3", new int[] {c, a}, d);
        g.b.output(d);
        ActivationPlan plan = planStatic(g.b.build());
        assertInterval(plan, a, 0, 3);
        assertSlots(plan, new int[] {a, b, c, d}, 0, 1, 2, 1);
        assertEquals(3, plan.numSlots());
    }

    @Test
    void disjointChainsShare() {
        // chain A: a1 = n0(x) [0, 1], a2 = n1(a1) [1, 1] (read by nobody); chain B: b1 = n2(x)
        // [2, 3], b2 = n3(b1) output [3, 3]. Chain B reuses chain A's two slots.
        G g = new G();
        int a1 = g.v("a1");
        int a2 = g.v("a2");
        int b1 = g.v("b1");
        int b2 = g.v("b2");
        g.node("n0", new int[] {g.x}, a1);
        g.node("n1", new int[] {a1}, a2);
        g.node("n2", new int[] {g.x}, b1);
        g.node("n3", new int[] {b1}, b2);
        g.b.output(b2);
        ActivationPlan plan = planStatic(g.b.build());
        assertSlots(plan, new int[] {a1, a2, b1, b2}, 0, 1, 0, 1);
        assertEquals(2 * KIB, plan.peakBytes());
        assertEquals(4 * KIB, plan.naiveBytes());
    }

    @Test
    void aViewExtendsItsSourceAndOwnsNoSlot() {
        // v = n1(a) is a view of a, read by n2: a lives [0, 2], not [0, 1]. So b = n2(v) [2, 3]
        // cannot take a's slot (a is freed after b is allocated) and opens s1; c = n3(b) takes s0.
        G g = new G();
        int a = g.v("a");
        int view = g.v("view");
        int b = g.v("b");
        int c = g.v("c");
        g.node("n0", new int[] {g.x}, a);
        g.node("reshape", new int[] {a}, view);
        g.node("n2", new int[] {view}, b);
        g.node("n3", new int[] {b}, c);
        g.b.output(c);
        Graph graph = g.b.build();
        ActivationPlan plan = planStatic(graph, ViewMap.builder().put(view, a).build(), SLOTS);
        assertInterval(plan, a, 0, 2);
        assertEquals(-1, plan.slotOf(view));
        assertEquals(-1, plan.schedule().ownerIndexOf(view));
        assertEquals(a, plan.schedule().root(view));
        assertSlots(plan, new int[] {a, b, c}, 0, 1, 0);
        assertEquals(3 * KIB, plan.naiveBytes(), "the view adds no bytes");

        // Without the view edge a dies at position 1 and the view owns a slot of its own.
        ActivationPlan plain = planStatic(graph);
        assertInterval(plain, a, 0, 1);
        assertNotEquals(-1, plain.slotOf(view));
    }

    @Test
    void viewOfAViewFoldsToTheRoot() {
        // v1 = view(a), v2 = view(v1): root(v2) = a; b = n3(v2) extends a to [0, 3].
        G g = new G();
        int a = g.v("a");
        int v1 = g.v("v1");
        int v2 = g.v("v2");
        int b = g.v("b");
        int c = g.v("c");
        g.node("n0", new int[] {g.x}, a);
        g.node("squeeze", new int[] {a}, v1);
        g.node("flatten", new int[] {v1}, v2);
        g.node("n3", new int[] {v2}, b);
        g.node("n4", new int[] {b}, c);
        g.b.output(c);
        ViewMap views = ViewMap.builder().put(v1, a).put(v2, v1).build();
        ActivationPlan plan = planStatic(g.b.build(), views, SLOTS);
        assertEquals(a, plan.schedule().root(v2));
        assertEquals(a, views.root(v2));
        assertInterval(plan, a, 0, 3);
        assertSlots(plan, new int[] {a, v1, v2, b, c}, 0, -1, -1, 1, 0);
        assertEquals(3, plan.schedule().numOwners());
    }

    @Test
    void aGraphOutputsSlotIsNeverShared() {
        // a = n0(x) is a graph output in the middle: it lives to the last position, so no later
        // owner may take s0. b [1, 2] s1, c [2, 3] s2, d [3, 3] takes b's s1.
        G g = new G();
        int[] v = g.chain(4);
        g.b.output(v[0], v[3]);
        ActivationPlan plan = planStatic(g.b.build());
        assertInterval(plan, v[0], 0, 3);
        assertSlots(plan, v, 0, 1, 2, 1);
        for (int other : new int[] {v[1], v[2], v[3]}) {
            assertNotEquals(plan.slotOf(v[0]), plan.slotOf(other));
        }
    }

    @Test
    void aSymbolicShapeDefers() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of(1, "seq", 768));
        int h = b.value("h", DataType.FLOAT32, Shape.of(1, "seq", 768));
        int s = b.value("s", DataType.FLOAT32, Shape.of(4));
        int y = b.value("y", DataType.FLOAT32, Shape.of(1, "seq", 768));
        b.input(x);
        b.node("n0", "Relu", new int[] {x}, new int[] {h, s});
        b.node("n1", "Relu", new int[] {h}, new int[] {y});
        b.output(y);
        Graph g = b.build();
        PlanResult r = MemPlan.plan(g, ViewMap.empty(), SizeOracle.staticShapes(), SLOTS);
        assertEquals(new PlanResult.Deferred(List.of(h, y)), r, "h and y have symbolic shapes; s is static");
        assertFalse(r.isComplete());
        IllegalStateException e = assertThrows(IllegalStateException.class, r::orElseThrow);
        assertTrue(e.getMessage().contains("[1, 3]"), e.getMessage());

        ActivationPlan bound = MemPlan.compile(g, ViewMap.empty(), SLOTS)
                .plan(Map.of("seq", 10L)).orElseThrow();
        PlanValidator.validate(bound);
        assertEquals(10 * 768 * 4, bound.sizeOf(h));
    }

    @Test
    void aCustomOraclePlansAtRunTime() {
        // One schedule, sizes from the request: 100, 300, 50, 200 bytes for v0..v3.
        // v0 s0(100); v1 s1(300); v2 (50) takes v0's s0 (100); v3 (200) takes v1's s1 (300).
        G g = new G();
        int[] v = g.chain(4);
        g.b.output(v[3]);
        Schedule schedule = MemPlan.compile(g.b.build(), ViewMap.empty(), SLOTS);
        long[] bytes = {100, 300, 50, 200};
        SizeOracle fromRequest = value -> OptionalLong.of(bytes[Integer.parseInt(value.name().substring(1))]);
        ActivationPlan plan = schedule.plan(fromRequest).orElseThrow();
        PlanValidator.validate(plan);
        assertSlots(plan, v, 0, 1, 0, 1);
        assertEquals(List.of(new ActivationPlan.Slot(0, 100), new ActivationPlan.Slot(1, 300)), plan.slots());
        assertEquals(650, plan.naiveBytes());
        assertEquals(400, plan.peakBytes());
        assertEquals(400, plan.lowerBoundBytes()); // v0 + v1 at position 1

        // A request where v2 (500) outgrows the free s0 opens s2; v3 (200) then takes v1's s1 (300).
        long[] bigger = {100, 300, 500, 200};
        ActivationPlan other = schedule.plan(value -> OptionalLong.of(bigger[Integer.parseInt(value.name()
                .substring(1))])).orElseThrow();
        PlanValidator.validate(other);
        assertSlots(other, v, 0, 1, 2, 1);
        assertEquals(List.of(new ActivationPlan.Slot(0, 100), new ActivationPlan.Slot(1, 300),
                new ActivationPlan.Slot(2, 500)), other.slots());
    }

    @Test
    void theValidatorCatchesTwoOverlappingOwnersForcedIntoOneSlot() {
        G g = new G();
        int[] v = g.chain(4);
        g.b.output(v[3]);
        ActivationPlan plan = planStatic(g.b.build());
        // v1 [1, 2] forced into v0's slot s0 while v0 [0, 1] is live at position 1.
        int[] ownerSlots = {0, 0, 0, 1};
        Allocation forced = new Allocation(2, 2 * KIB, 4 * KIB, 2 * KIB, IntBuffer.wrap(ownerSlots),
                LongBuffer.wrap(new long[] {KIB, KIB}));
        LongBuffer sizes = LongBuffer.wrap(new long[] {KIB, KIB, KIB, KIB});
        ActivationPlan bad = new ActivationPlan(plan.schedule(), TestPlans.boundOf(plan.schedule()), sizes, forced);
        PlanValidationException e = assertThrows(PlanValidationException.class, () -> PlanValidator.validate(bad));
        assertTrue(e.getMessage().contains("owners 'v0' (value 1) [0, 1] and 'v1' (value 2) [1, 2] are live at the"
                + " same time but share slot 0"), e.getMessage());
        assertTrue(e.getMessage().contains("'v1' (value 2) [1, 2] and 'v2' (value 3) [2, 3]"), e.getMessage());
    }

    @Test
    void aTenNodeChainSaves80Percent() {
        G g = new G();
        int[] v = g.chain(10);
        g.b.output(v[9]);
        ActivationPlan plan = planStatic(g.b.build());
        for (int i = 0; i < 10; i++) {
            assertEquals(i % 2, plan.slotOf(v[i]));
        }
        assertEquals(2 * KIB, plan.peakBytes());
        assertEquals(10 * KIB, plan.naiveBytes());
        assertEquals(0.8, plan.savingsRatio(), 1e-12);
    }

    @Test
    void includeGraphInputsAddsTheInputs() {
        // x takes s0 before the walk and lives [0, 0]; a = n0(x) [0, 1] opens s1 (x is freed only
        // after position 0's outputs); b = n1(a) [1, 1] takes x's s0.
        G g = new G();
        int[] v = g.chain(2);
        g.b.output(v[1]);
        Graph graph = g.b.build();
        ActivationPlan with = planStatic(graph, ViewMap.empty(), SLOTS.withIncludeGraphInputs(true));
        assertInterval(with, g.x, 0, 0);
        assertSlots(with, new int[] {g.x, v[0], v[1]}, 0, 1, 0);
        assertEquals(3 * KIB, with.naiveBytes());
        assertEquals(2 * KIB, with.peakBytes());
        assertEquals(g.x, with.schedule().ownerValue(0), "included inputs come first");

        ActivationPlan without = planStatic(graph);
        assertEquals(-1, without.slotOf(g.x));
        assertSlots(without, v, 0, 1);
        assertEquals(2 * KIB, without.naiveBytes());
    }

    @Test
    void aDeadOnArrivalValueIsHandled() {
        // n0(x) -> (a, dead): dead is read by nobody, lives [0, 0], gets s1 and frees it at once;
        // b = n1(a) [1, 1] takes it.
        G g = new G();
        int a = g.v("a");
        int dead = g.v("dead");
        int b = g.v("b");
        g.node("n0", new int[] {g.x}, a, dead);
        g.node("n1", new int[] {a}, b);
        g.b.output(b);
        ActivationPlan plan = planStatic(g.b.build());
        assertInterval(plan, dead, 0, 0);
        assertSlots(plan, new int[] {a, dead, b}, 0, 1, 1);
        assertEquals(2 * KIB, plan.peakBytes());
        assertEquals(3 * KIB, plan.naiveBytes());
    }

    @Test
    void anEmptyGraphPlansToNothing() {
        Graph g = Graph.builder().build();
        ActivationPlan plan = planStatic(g);
        assertEquals(0, plan.numSlots());
        assertEquals(0, plan.peakBytes());
        assertEquals(0.0, plan.savingsRatio());
    }
}
