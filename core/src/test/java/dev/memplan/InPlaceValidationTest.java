// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.Graph.Value;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.engine.CompiledGraph;
import dev.memplan.engine.JavaEngine;
import dev.memplan.testing.ArenaInterpreter;
import dev.memplan.validate.PlanValidationException;
import dev.memplan.validate.PlanValidator;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * In-place links on small graphs whose answer is known, and the validator re-deriving them: it
 * rejects a schedule that claims an illegal pair (whose arena check alone would pass), and the
 * arena interpreter shows why that pair is illegal.
 */
class InPlaceValidationTest {
    private static final Shape S = Shape.of(4, 8);

    /** x -> n0 Relu -> a -> n1 Relu (hint) -> b -> n2 Add(a, b) -> c: a is read after n1, so b may not take it. */
    private static Graph readAgain() {
        Graph.Builder g = Graph.builder();
        int x = g.value("x", DataType.FLOAT32, S);
        int a = g.value("a", DataType.FLOAT32, S);
        int b = g.value("b", DataType.FLOAT32, S);
        int c = g.value("c", DataType.FLOAT32, S);
        g.input(x);
        g.node("n0", "Relu", new int[] {x}, new int[] {a});
        int n1 = g.node("n1", "Relu", new int[] {a}, new int[] {b});
        int n2 = g.node("n2", "Add", new int[] {a, b}, new int[] {c});
        g.inPlace(n1, 0);
        g.inPlace(n2, 0, 1);
        g.output(c);
        return g.build();
    }

    private static PlanOptions on() {
        return PlanOptions.defaults().withInPlace(true);
    }

    @Test
    void linksOnlyWhereTheInputDiesAndAChainSharesOneBuffer() {
        Graph g = readAgain();
        Schedule s = MemPlan.compile(g, ViewMap.empty(), on());
        int a = g.valueId("a").getAsInt();
        int b = g.valueId("b").getAsInt();
        int c = g.valueId("c").getAsInt();
        assertEquals(b, s.bufferOf(b), "a is read again by n2: b keeps its own buffer");
        assertEquals(a, s.bufferOf(c), "n2 is a's last read: c takes a's buffer (input 0, the first that qualifies)");
        assertEquals(a, s.inPlaceSource(c));
        assertEquals(1, s.numInPlace());
        ActivationPlan plan = s.plan(SizeOracle.staticShapes()).orElseThrow();
        PlanValidator.validate(plan);
        assertEquals(2 * 128, plan.lowerBoundBytes());
        assertEquals(3 * 128, plan.lowerBoundWithoutInPlaceBytes());
        assertNull(new ArenaInterpreter(plan, sizes(g)).run());
    }

    @Test
    void offByDefaultForSlotsAndOffWhenAsked() {
        Graph g = readAgain();
        assertEquals(0, MemPlan.compile(g, ViewMap.empty(), PlanOptions.defaults().withStrategy(Strategy.SLOTS))
                .numInPlace());
        assertEquals(0, MemPlan.compile(g, ViewMap.empty(), PlanOptions.defaults().withInPlace(false)).numInPlace());
        assertEquals(1, MemPlan.compile(g, ViewMap.empty(), PlanOptions.defaults()).numInPlace(), "on for offsets");
        assertEquals(1, MemPlan.compile(g, ViewMap.empty(), on().withStrategy(Strategy.SLOTS)).numInPlace());
    }

    @Test
    void validatorRejectsAnIllegalPairThatTheArenaCheckWouldPass() {
        Graph g = readAgain();
        int a = g.valueId("a").getAsInt();
        int b = g.valueId("b").getAsInt();
        int[] roots = {0, 1, 2, 3};
        int[] claimed = roots.clone();
        claimed[b] = a; // b placed in a's buffer, although n2 reads a after n1
        CompiledGraph compiled = JavaEngine.INSTANCE.compile(g.flat(), claimed, false);
        Schedule wrong = new Schedule(g, ViewMap.empty(), on(), roots, compiled);
        assertEquals(a, wrong.bufferOf(b));
        ActivationPlan plan = wrong.plan(SizeOracle.staticShapes()).orElseThrow();
        PlanValidationException e = assertThrows(PlanValidationException.class, () -> PlanValidator.validate(plan));
        assertTrue(e.getMessage().contains("the schedule places 'b' (value 2) in place, in the buffer of 'a' (value 1),"
                + " but the in-place rules refuse it: 'a' (value 1)'s bytes are read again at position 2"),
                e.getMessage());
        String overwritten = new ArenaInterpreter(plan, sizes(g)).run();
        assertNotNull(overwritten, "running the illegal pair must overwrite a before n2 reads it");
        assertTrue(overwritten.startsWith("'a' (value 1) read by 'n2' (Add, node 2) at position 2"), overwritten);
    }

    @Test
    void ruleDRefusesAWiderOutputAndAcceptsEqualBytesInAnotherShape() {
        Graph.Builder gb = Graph.builder();
        int x = gb.value("x", DataType.FLOAT32, Shape.of(Dim.symbol("n"), 8));
        int a = gb.value("a", DataType.FLOAT32, Shape.of(Dim.symbol("n"), 8));
        int wide = gb.value("wide", DataType.FLOAT64, Shape.of(Dim.symbol("n"), 8));
        gb.input(x);
        gb.node("n0", "Relu", new int[] {x}, new int[] {a});
        int n1 = gb.node("n1", "Cast", new int[] {a}, new int[] {wide});
        gb.inPlace(n1, 0);
        gb.output(wide);
        assertEquals(0, MemPlan.compile(gb.build(), ViewMap.empty(), on()).numInPlace(),
                "float64 does not fit float32's bytes");

        Graph.Builder hb = Graph.builder();
        int y = hb.value("y", DataType.FLOAT32, S);
        int m = hb.value("m", DataType.FLOAT32, Shape.of(Dim.symbol("n"), 8));
        int same = hb.value("same", DataType.INT32, Shape.of(8, Dim.symbol("n")));
        hb.input(y);
        hb.node("n0", "Grow", new int[] {y}, new int[] {m});
        int m1 = hb.node("n1", "Cast", new int[] {m}, new int[] {same});
        hb.inPlace(m1, 0);
        hb.output(same);
        Schedule s = MemPlan.compile(hb.build(), ViewMap.empty(), on());
        assertEquals(m, s.bufferOf(same), "same width, the same dims in another order: equal bytes at every n");
        PlanValidator.validate(s.plan(Map.of("n", 3L)).orElseThrow());
    }

    @Test
    void hintsAreCheckedWhenTheGraphIsBuilt() {
        Graph.Builder g = Graph.builder();
        int x = g.value("x", DataType.FLOAT32, S);
        int y = g.value("y", DataType.FLOAT32, S);
        g.input(x);
        int n = g.node("n0", "Add", new int[] {x, Graph.ABSENT}, new int[] {y});
        InvalidGraphException range = assertThrows(InvalidGraphException.class, () -> g.inPlace(n, 2));
        assertEquals("'n0' (Add, node 0) has an in-place hint on input 2, but it has inputs 0 to 1; name one of those",
                range.getMessage());
        InvalidGraphException absent = assertThrows(InvalidGraphException.class, () -> g.inPlace(n, 1));
        assertTrue(absent.getMessage().contains("input 1, which is absent"), absent.getMessage());
    }

    private static long[] sizes(Graph g) {
        long[] out = new long[g.valueCount()];
        for (Value v : g.values()) {
            out[v.id()] = v.bytesAt(Map.of("n", 3L)).orElseThrow();
        }
        return out;
    }
}
