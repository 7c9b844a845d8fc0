// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.NativeRequirement;
import java.nio.LongBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pool native calls borrow their working memory from: a block given back is lent again (so
 * a request maps no fresh memory), from its first byte; a block too small is replaced by a larger
 * one; the pool keeps no more blocks than its limit. And a native plan's sizes refused by the C++
 * checks are named as the Java engine names them.
 */
@EngineIndependent
class NativeBlockPoolTest {
    @BeforeAll
    static void nativeLibrary() {
        NativeRequirement.requireNativeEngine();
        NativeEngine.instance().orElseThrow();
    }

    @Test
    void aBlockGivenBackIsLentAgainFromItsStart() {
        NativeBlockPool pool = new NativeBlockPool(2);
        NativeBlock first = pool.take(1000);
        long start = first.skip(64);
        first.skip(64);
        pool.give(first);
        NativeBlock again = pool.take(500);
        assertSame(first, again, "the block given back is lent again");
        assertEquals(start, again.skip(8), "nothing carved from a block lent again");
        pool.give(again);
        assertEquals(1, pool.kept());
    }

    @Test
    void aBlockTooSmallIsReplacedByOneOfTheNextPowerOfTwo() {
        NativeBlockPool pool = new NativeBlockPool(2);
        NativeBlock small = pool.take(1000);
        pool.give(small);
        NativeBlock large = pool.take(300_000);
        assertNotEquals(small, large);
        assertEquals(1L << 19, large.capacity());
        pool.give(large);
        assertEquals(1, pool.kept(), "the small block was freed, not kept beside the large one");
        assertSame(large, pool.take(1000), "a large block serves a small request");
    }

    @Test
    void keepsNoMoreBlocksThanItsLimit() {
        NativeBlockPool pool = new NativeBlockPool(2);
        NativeBlock a = pool.take(10);
        NativeBlock b = pool.take(10);
        NativeBlock c = pool.take(10);
        pool.give(a);
        pool.give(b);
        pool.give(c);
        assertEquals(2, pool.kept());
    }

    @Test
    void roundsUpToAPowerOfTwoFrom64KiB() {
        assertEquals(64 << 10, NativeBlockPool.roundUp(1));
        assertEquals(1L << 20, NativeBlockPool.roundUp(1L << 20));
        assertEquals(1L << 21, NativeBlockPool.roundUp((1L << 20) + 1));
    }

    @Test
    void sizesTheNativeCodeRefusesAreNamedAsJavaNamesThem() {
        int[] roots = {0, 1, 2};
        int[] flags = {FlatGraph.GRAPH_INPUT, 0, FlatGraph.GRAPH_OUTPUT};
        FlatGraph graph = new FlatGraph(3, 2, new int[] {0, 1, 2}, new int[] {0, 1}, new int[] {0, 1, 2},
                new int[] {1, 2}, flags);
        for (long[] sizes : new long[][] {{8, -3}, {Long.MAX_VALUE, 1}}) {
            String[] messages = new String[2];
            int i = 0;
            for (PlanningEngine engine : new PlanningEngine[] {NativeEngine.instance().orElseThrow(),
                    JavaEngine.INSTANCE}) {
                CompiledGraph g = engine.compile(graph, roots, false);
                RuntimeException slots = assertThrows(RuntimeException.class,
                        () -> g.allocate(LongBuffer.wrap(sizes)));
                RuntimeException offsets = assertThrows(RuntimeException.class,
                        () -> g.allocateOffsets(LongBuffer.wrap(sizes), 1));
                assertEquals(slots.getClass(), offsets.getClass());
                assertEquals(slots.getMessage(), offsets.getMessage());
                messages[i++] = slots.getClass().getSimpleName() + ": " + slots.getMessage();
            }
            assertEquals(messages[1], messages[0], "native and Java name the same size");
            assertTrue(messages[0].contains("owner 1"), messages[0]);
        }
    }
}
