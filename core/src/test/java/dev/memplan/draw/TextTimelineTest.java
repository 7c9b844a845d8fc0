// SPDX-License-Identifier: Apache-2.0
package dev.memplan.draw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.ActivationPlan;
import dev.memplan.DataType;
import dev.memplan.Graph;
import dev.memplan.MemPlan;
import dev.memplan.Shape;
import dev.memplan.PlanOptions.Strategy;
import dev.memplan.ViewMap;
import dev.memplan.testing.EngineIndependent;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@EngineIndependent
class TextTimelineTest {

    /** in -> a (1 KiB) -> b (2 KiB) -> c (1 KiB): a and b live together at b's node, b and c at c's. */
    private static ActivationPlan chain(Strategy s, String... names) {
        Graph.Builder g = Graph.builder();
        int in = g.value("in", DataType.UINT8, Shape.fixed(16));
        g.input(in);
        int prev = in;
        long[] sizes = {1024, 2048, 1024};
        for (int i = 0; i < names.length; i++) {
            int v = g.value(names[i], DataType.UINT8, Shape.fixed(sizes[i % 3]));
            g.node("n" + i, "Relu", new int[] {prev}, new int[] {v});
            prev = v;
        }
        g.output(prev);
        ActivationPlan plan = MemPlan.compile(g.build(), ViewMap.empty(), Pictures.options(s)).plan(Map.of()).orElseThrow();
        Pictures.validate(plan);
        return plan;
    }

    @ParameterizedTest
    @EnumSource(Strategy.class)
    void eachCellShowsTheOwnerThatHoldsItsBytes(Strategy s) {
        ActivationPlan plan = chain(s, "a", "b", "c");
        String text = TextTimeline.render(plan, 16, 40);
        List<String> rows = Arrays.stream(text.split("\n")).filter(l -> l.contains("|")).toList();
        assertEquals(plan.schedule().numPositions(), rows.size(), "one row per position when they fit");
        long perColumn = (plan.peakBytes() + 15) / 16;
        for (int o = 0; o < plan.schedule().numOwners(); o++) {
            int v = plan.schedule().ownerValue(o);
            char letter = "ABC".charAt(o);
            // the column of the owner's middle byte: a cell it shares with a neighbour may show either
            int column = (int) ((plan.offsetOf(v) + plan.sizeOf(v) / 2) / perColumn);
            for (int p = 0; p < rows.size(); p++) {
                String cells = rows.get(p).substring(rows.get(p).indexOf('|') + 1, rows.get(p).lastIndexOf('|'));
                assertEquals(16, cells.length());
                boolean live = plan.schedule().def(o) <= p && p <= plan.schedule().useEnd(o);
                assertEquals(live, cells.charAt(column) == letter, "owner " + letter + " at position " + p + ": " + cells);
            }
        }
        assertTrue(text.contains("arena timeline (" + s.name().toLowerCase() + " plan)"), text);
    }

    @Test
    void bucketsPositionsAndEscapesNames() {
        String[] names = new String[30];
        for (int i = 0; i < names.length; i++) {
            names[i] = "t" + i + "\u001b[2J\u202e";
        }
        ActivationPlan plan = chain(Strategy.OFFSETS, names);
        String text = TextTimeline.render(plan, 32, 8);
        long rows = text.lines().filter(l -> l.contains("|")).count();
        assertTrue(rows <= 8, text);
        assertFalse(text.contains("\u001b"), "no raw escape character reaches the terminal");
        assertFalse(text.contains("\u202e"), "no raw bidi override reaches the terminal");
        assertTrue(text.contains("\\x1b[2J\\u202e"), text); // the terminal escape (TerminalText)
    }
}
