// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.NativeRequirement;
import dev.memplan.testing.PlanAssertions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Bad inputs at the native engine's Java boundary become Java exceptions, never a crash: graphs
 * with out-of-range ids or broken offsets, bad view roots, size buffers of the wrong length,
 * negative or overflowing sizes. Buffers the native code cannot read in place (heap, wrong byte
 * order, offset position) are copied and plan exactly as a direct buffer does.
 */
@EngineIndependent
class NativeBoundaryTest {
    private static PlanningEngine engine;

    @BeforeAll
    static void nativeEngine() {
        NativeRequirement.requireNativeEngine();
        engine = NativeEngine.instance().orElseThrow();
    }

    /** The arrays of a valid graph: x (input) -> n0 -> a -> n1 -> b (output), a test then breaks. */
    private static final class Arrays3 {
        int numValues = 3;
        int numNodes = 2;
        int[] inOff = {0, 1, 2};
        int[] ins = {0, 1};
        int[] outOff = {0, 1, 2};
        int[] outs = {1, 2};
        int[] flags = {FlatGraph.GRAPH_INPUT, 0, FlatGraph.GRAPH_OUTPUT};
        int[] roots = {0, 1, 2};

        FlatGraph graph() {
            return new FlatGraph(numValues, numNodes, inOff, ins, outOff, outs, flags);
        }
    }

    private static CompiledGraph compile(Consumer<Arrays3> change) {
        Arrays3 a = new Arrays3();
        change.accept(a);
        return engine.compile(a.graph(), a.roots, false);
    }

    private static void rejected(Consumer<Arrays3> change, String fragment) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> compile(change));
        assertTrue(e.getMessage().contains(fragment), () -> "expected '" + fragment + "' in: " + e.getMessage());
    }

    @Test
    void theValidGraphCompiles() {
        CompiledGraph g = compile(a -> { });
        assertEquals("native", g.engineName());
        assertEquals(2, g.numOwners());
    }

    @Test
    void outOfRangeValueIds() {
        rejected(a -> a.ins = new int[] {0, 7}, "input value id 7 is out of range");
        rejected(a -> a.ins = new int[] {-2, 1}, "input value id -2 is out of range");
        rejected(a -> a.outs = new int[] {1, 3}, "output value id 3 is out of range");
        rejected(a -> a.outs = new int[] {1, -1}, "output value id -1 is out of range");
        rejected(a -> a.outs = new int[] {1, 1}, "value 1 is produced twice");
    }

    @Test
    void wrongOffsets() {
        rejected(a -> a.inOff = new int[] {0, 1}, "input offsets have 2 entries, expected 3");
        rejected(a -> a.inOff = new int[] {1, 1, 2}, "input offsets must start at 0");
        rejected(a -> a.inOff = new int[] {0, 2, 1}, "input offsets decrease at node 1");
        rejected(a -> a.inOff = new int[] {0, 1, 1}, "input offsets end at 1 but there are 2 inputs");
        rejected(a -> a.outOff = new int[] {0, 1, 3}, "output offsets end at 3 but there are 2 outputs");
        rejected(a -> a.outOff = new int[] {0, -1, 2}, "output offsets decrease at node 0");
    }

    @Test
    void wrongCounts() {
        rejected(a -> a.flags = new int[] {1, 0}, "valueFlags has 2 entries, expected 3");
        rejected(a -> a.numValues = -1, "negative counts");
        rejected(a -> {
            a.numValues = 2;
            a.flags = new int[] {1, 0};
            a.roots = new int[] {0, 1};
        }, "out of range");
    }

    @Test
    void badRoots() {
        rejected(a -> a.roots = new int[] {0, 1}, "valueRoot has 2 entries, expected 3");
        rejected(a -> a.roots = new int[] {0, 5, 2}, "value 1 has root 5");
        rejected(a -> a.roots = new int[] {0, -1, 2}, "value 1 has root -1");
        // 1 -> 2 but 2 is not its own root: a chain the caller should have folded.
        rejected(a -> a.roots = new int[] {0, 2, 0}, "value 1 has root 2, which is not a root value");
        // A graph input that is a "view" of a produced value: the native core's own check.
        assertThrows(IllegalArgumentException.class, () -> compile(a -> a.roots = new int[] {1, 1, 2}));
    }

    @Test
    void unknownFlagBitsAreRejectedByTheNativeCheck() {
        assertThrows(IllegalArgumentException.class, () -> compile(a -> a.flags = new int[] {1 | 64, 0, 2}));
    }

    @Test
    void aCycleIsAJavaException() {
        GraphCycleException e = assertThrows(GraphCycleException.class, () -> compile(a -> {
            a.ins = new int[] {2, 1}; // n0 reads b, which n1 makes from a, which n0 makes
            a.flags = new int[] {FlatGraph.GRAPH_INPUT, 0, 0};
        }));
        assertEquals(0, e.nodeId());
    }

    @Test
    void nullArraysAreJavaExceptions() {
        assertThrows(NullPointerException.class, () -> compile(a -> a.ins = null));
        assertThrows(NullPointerException.class, () -> compile(a -> a.roots = null));
    }

    private static void fails(Class<? extends Throwable> type, Executable call) {
        assertThrows(type, call);
    }

    @Test
    void sizeBuffersOfTheWrongLength() {
        CompiledGraph g = compile(a -> { });
        fails(IllegalArgumentException.class, () -> g.allocate(LongBuffer.allocate(1)));
        fails(IllegalArgumentException.class, () -> g.allocate(direct(1, ByteOrder.nativeOrder())));
        fails(IllegalArgumentException.class, () -> g.allocate(LongBuffer.allocate(0)));
        LongBuffer shifted = direct(2, ByteOrder.nativeOrder());
        shifted.position(1);
        fails(IllegalArgumentException.class, () -> g.allocate(shifted));
    }

    @Test
    void negativeAndOverflowingSizes() {
        CompiledGraph g = compile(a -> { });
        fails(IllegalArgumentException.class, () -> g.allocate(sizes(g, 8, -1)));
        fails(ArithmeticException.class, () -> g.allocate(sizes(g, Long.MAX_VALUE, 1)));
    }

    @Test
    void buffersTheNativeCodeCannotReadInPlaceAreCopied() {
        CompiledGraph g = compile(a -> { });
        Allocation expected = g.allocate(sizes(g, 16, 8));
        LongBuffer heap = LongBuffer.wrap(new long[] {16, 8});
        LongBuffer swapped = direct(2, ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN
                ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        swapped.put(16).put(8).flip();
        LongBuffer offset = LongBuffer.wrap(new long[] {99, 16, 8});
        offset.position(1);
        LongBuffer readOnly = sizes(g, 16, 8).asReadOnlyBuffer();
        for (LongBuffer b : new LongBuffer[] {heap, swapped, offset, readOnly}) {
            Allocation a = g.allocate(b);
            assertEquals(expected.numSlots(), a.numSlots());
            assertEquals(expected.peakBytes(), a.peakBytes());
            assertArrayEquals(PlanAssertions.ints(expected.ownerSlots()), PlanAssertions.ints(a.ownerSlots()));
            assertArrayEquals(PlanAssertions.longs(expected.slotCapacities()), PlanAssertions.longs(a.slotCapacities()));
        }
        assertEquals(2, expected.numSlots());
        assertEquals(24, expected.peakBytes());
    }

    private static LongBuffer direct(int n, ByteOrder order) {
        return ByteBuffer.allocateDirect(n * Long.BYTES).order(order).asLongBuffer();
    }

    private static LongBuffer sizes(CompiledGraph g, long... values) {
        LongBuffer b = g.newSizeBuffer();
        b.put(values).flip();
        return b;
    }
}
