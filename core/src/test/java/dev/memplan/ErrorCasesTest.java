// SPDX-License-Identifier: Apache-2.0
package dev.memplan;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Bad graphs, views and sizes fail with an error naming the value or node at fault. */
class ErrorCasesTest {

    private static <T extends Throwable> T fails(Class<T> type, Executable call, String... fragments) {
        T e = assertThrows(type, call);
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), () -> "expected '" + f + "' in: " + e.getMessage());
        }
        return e;
    }

    private static Schedule compile(Graph g, ViewMap views) {
        return MemPlan.compile(g, views, PlanOptions.defaults());
    }

    @Test
    void aCycleNamesANodeOnIt() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of(4));
        int a = b.value("a", DataType.FLOAT32, Shape.of(4));
        int c = b.value("c", DataType.FLOAT32, Shape.of(4));
        b.input(x);
        b.node("first", "Add", new int[] {x, c}, new int[] {a});
        b.node("second", "Relu", new int[] {a}, new int[] {c});
        b.output(c);
        Graph g = b.build(); // a cycle is found when ordering, not when building
        fails(InvalidGraphException.class, () -> compile(g, ViewMap.empty()),
                "cycle through 'first' (Add, node 0)", "remove the back edge");
    }

    @Test
    void aViewCycleNamesAValueOnIt() {
        Graph.Builder b = Graph.builder();
        int a = b.value("a", DataType.FLOAT32, Shape.of(4));
        int c = b.value("c", DataType.FLOAT32, Shape.of(4));
        b.node("n0", "Identity", new int[] {c}, new int[] {a});
        b.node("n1", "Identity", new int[] {a}, new int[] {c});
        Graph g = b.build();
        ViewMap views = ViewMap.builder().put(a, c).put(c, a).build();
        fails(InvalidGraphException.class, () -> compile(g, views), "view cycle through", "(value ");
        fails(InvalidGraphException.class, () -> views.root(a), "view cycle through value 0");
    }

    @Test
    void aViewOfAValueThatIsNotAnInputOfItsProducer() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of(4));
        int a = b.value("a", DataType.FLOAT32, Shape.of(4));
        int r = b.value("r", DataType.FLOAT32, Shape.of(4));
        b.input(x);
        b.node("n0", "Relu", new int[] {x}, new int[] {a});
        b.node("n1", "Reshape", new int[] {x}, new int[] {r});
        b.output(a, r);
        Graph g = b.build();
        fails(InvalidGraphException.class, () -> compile(g, ViewMap.builder().put(r, a).build()),
                "view 'r' (value 2) has source 'a' (value 1), which is not an input of its producer"
                        + " 'n1' (Reshape, node 1)");
    }

    @Test
    void aViewThatIsAGraphInputOrInitializer() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of(4));
        int w = b.value("w", DataType.FLOAT32, Shape.of(4));
        int y = b.value("y", DataType.FLOAT32, Shape.of(4));
        b.input(x);
        b.initializer(w);
        b.node("n0", "Add", new int[] {x, w}, new int[] {y});
        b.output(y);
        Graph g = b.build();
        fails(InvalidGraphException.class, () -> compile(g, ViewMap.builder().put(x, y).build()),
                "view 'x' (value 0) is a graph input");
        fails(InvalidGraphException.class, () -> compile(g, ViewMap.builder().put(w, x).build()),
                "view 'w' (value 1) is an initializer; only node outputs can be views");
    }

    @Test
    void aViewProducedByNoNode() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of(4));
        int loose = b.value("loose", DataType.FLOAT32, Shape.of(4)); // declared, never produced or read
        int y = b.value("y", DataType.FLOAT32, Shape.of(4));
        b.input(x);
        b.node("n0", "Relu", new int[] {x}, new int[] {y});
        b.output(y);
        Graph g = b.build();
        fails(InvalidGraphException.class, () -> compile(g, ViewMap.builder().put(loose, x).build()),
                "view 'loose' (value 1) is produced by no node");
        fails(InvalidGraphException.class, () -> compile(g, ViewMap.builder().put(y, 7).build()),
                "view edge 2 -> 7 refers to a value id outside 0..2");
    }

    @Test
    void aViewWithTwoSources() {
        fails(InvalidGraphException.class, () -> ViewMap.builder().put(3, 1).put(3, 2),
                "value 3 is declared a view of both 1 and 2");
    }

    @Test
    void aValueProducedTwice() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of(4));
        int y = b.value("y", DataType.FLOAT32, Shape.of(4));
        b.input(x);
        b.node("first", "Relu", new int[] {x}, new int[] {y});
        b.node("second", "Tanh", new int[] {x}, new int[] {y});
        fails(InvalidGraphException.class, b::build,
                "'y' (value 1) is produced twice, by 'first' (Relu, node 0) and by 'second' (Tanh, node 1)");
    }

    @Test
    void aProducedValueThatIsAlsoAGraphInputOrInitializer() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of(4));
        int y = b.value("y", DataType.FLOAT32, Shape.of(4));
        b.input(x, y);
        b.node("n0", "Relu", new int[] {x}, new int[] {y});
        fails(InvalidGraphException.class, b::build,
                "'y' (value 1) is produced by 'n0' (Relu, node 0) but is also a graph input");

        Graph.Builder c = Graph.builder();
        int u = c.value("u", DataType.FLOAT32, Shape.of(4));
        int w = c.value("w", DataType.FLOAT32, Shape.of(4));
        c.input(u);
        c.initializer(w);
        c.node("n0", "Relu", new int[] {u}, new int[] {w});
        fails(InvalidGraphException.class, c::build, "'w' (value 1) is produced by 'n0' (Relu, node 0)",
                "initializer");
    }

    @Test
    void aDanglingValue() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of(4));
        int ghost = b.value("ghost", DataType.FLOAT32, Shape.of(4));
        int y = b.value("y", DataType.FLOAT32, Shape.of(4));
        b.input(x);
        b.node("n0", "Add", new int[] {x, ghost}, new int[] {y});
        b.output(y);
        fails(InvalidGraphException.class, b::build, "'ghost' (value 1) is consumed but no node produces it");

        Graph.Builder c = Graph.builder();
        int out = c.value("out", DataType.FLOAT32, Shape.of(4));
        c.output(out);
        fails(InvalidGraphException.class, c::build, "'out' (value 0) is a graph output but no node produces it");
    }

    @Test
    void anOutOfRangeValueId() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of(4));
        b.input(x);
        b.node("n0", "Relu", new int[] {x}, new int[] {5});
        fails(InvalidGraphException.class, b::build, "'n0' (Relu, node 0) output 0 refers to value id 5");
    }

    private static Schedule oneNode(DataType type, Shape shape, PlanOptions options) {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of(4));
        int big = b.value("big", type, shape);
        b.input(x);
        b.node("n0", "Expand", new int[] {x}, new int[] {big});
        b.output(big);
        return MemPlan.compile(b.build(), ViewMap.empty(), options);
    }

    @Test
    void aNegativeSizeFromACustomOracle() {
        Schedule s = oneNode(DataType.FLOAT32, Shape.of(4), PlanOptions.defaults());
        fails(InvalidSizeException.class, () -> s.plan(v -> OptionalLong.of(-5)),
                "'big' (value 1) a negative size (-5 bytes)");
        fails(InvalidSizeException.class, () -> s.plan(new long[] {-1}), "'big' (value 1) a negative size");
    }

    @Test
    void aSizeOverflowFromHugeStaticDims() {
        Schedule s = oneNode(DataType.FLOAT32, Shape.of(1L << 31, 1L << 31), PlanOptions.defaults());
        // 2^62 elements of 4 bytes: the byte count overflows, the element count does not.
        fails(InvalidSizeException.class, () -> s.plan(SizeOracle.staticShapes()),
                "the size of 'big' (value 1) overflows a 64-bit byte count");
        Schedule t = oneNode(DataType.FLOAT32, Shape.of(1L << 40, 1L << 40), PlanOptions.defaults());
        fails(InvalidSizeException.class, () -> t.plan(SizeOracle.staticShapes()),
                "the size of 'big' (value 1)", "cannot be computed");
        // Sub-byte: 2^63-1 int4 elements pack into 2^62 bytes (fits); twice that many do not count.
        Schedule u = oneNode(DataType.INT4, Shape.of(Long.MAX_VALUE, 2), PlanOptions.defaults());
        fails(InvalidSizeException.class, () -> u.plan(SizeOracle.staticShapes()), "'big' (value 1)");
        // A symbol bound so large that the size overflows: an error, never "unknown".
        Schedule w = oneNode(DataType.INT64, Shape.of("seq", 1L << 60), PlanOptions.defaults());
        fails(InvalidSizeException.class, () -> w.plan(Map.of("seq", 16L)), "'big' (value 1)");
    }

    @Test
    void anAlignmentOverflow() {
        Schedule s = oneNode(DataType.UINT8, Shape.of(Long.MAX_VALUE - 1), PlanOptions.defaults().withAlignment(64));
        fails(InvalidSizeException.class, () -> s.plan(SizeOracle.staticShapes()),
                "'big' (value 1) overflows a 64-bit byte count", "aligned to 64");
    }

    @Test
    void aTotalThatOverflows() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of(4));
        int p = b.value("p", DataType.UINT8, Shape.of(Long.MAX_VALUE / 2 + 1));
        int q = b.value("q", DataType.UINT8, Shape.of(Long.MAX_VALUE / 2 + 1));
        b.input(x);
        b.node("n0", "Split", new int[] {x}, new int[] {p, q});
        b.output(p, q);
        Schedule s = MemPlan.compile(b.build(), ViewMap.empty(), PlanOptions.defaults());
        fails(InvalidSizeException.class, () -> s.plan(SizeOracle.staticShapes()),
                "the total of the owner sizes overflows", "'q' (value 2)");
    }

    @Test
    void badOptions() {
        fails(IllegalArgumentException.class, () -> PlanOptions.defaults().withAlignment(0), "alignment must be >= 1");
        fails(IllegalArgumentException.class, () -> EngineMode.parse("gpu"), "unknown engine 'gpu'");
        Schedule s = oneNode(DataType.FLOAT32, Shape.of(4), PlanOptions.defaults());
        fails(IllegalArgumentException.class, () -> s.plan(new long[] {1, 2}), "expected 1 owner sizes");
    }
}
