// SPDX-License-Identifier: Apache-2.0
package dev.memplan.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import dev.memplan.testing.NativeRequirement;
import java.nio.IntBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The native compile checks the graph's arrays in C++ (memplan_compile_packed) and runs
 * {@link FlatGraph}'s Java validations only to name what C++ refused. So C++ must refuse exactly
 * what Java refuses: each seeded case breaks one entry or length of a valid random graph (ids
 * in and out of order, views, in-place masks), and both engines must then throw the same
 * exception with the same message, or both compile the same schedule.
 */
@EngineIndependent
class NativeCompileChecksTest {
    private static PlanningEngine nativeEngine;

    @BeforeAll
    static void engines() {
        NativeRequirement.requireNativeEngine();
        nativeEngine = NativeEngine.instance().orElseThrow();
    }

    /** A graph's arrays, mutable so a case can break one of them. */
    private static final class Arrays7 {
        int numValues;
        int numNodes;
        int[] inOff;
        int[] ins;
        int[] outOff;
        int[] outs;
        int[] flags;
        int[] roots;
        int[] mask;

        FlatGraph graph() {
            return new FlatGraph(numValues, numNodes, inOff, ins, outOff, outs, flags);
        }
    }

    /**
     * A valid random DAG: a few graph inputs and weights, nodes reading earlier values, some
     * outputs views of an input, some with in-place masks; node ids shuffled unless
     * {@code inOrder}, so both the Kahn path and the ids-in-order path run.
     */
    private static Arrays7 randomGraph(Random rng, boolean inOrder) {
        int inputs = 1 + rng.nextInt(3);
        int nodes = rng.nextInt(25);
        int values = inputs + nodes;
        int[] flags = new int[values];
        int[] roots = IntStream.range(0, values).toArray();
        int[] mask = new int[values];
        for (int v = 0; v < inputs; v++) {
            flags[v] = rng.nextInt(4) == 0 ? FlatGraph.INITIALIZER : FlatGraph.GRAPH_INPUT;
        }
        int[][] nodeIns = new int[nodes][];
        for (int t = 0; t < nodes; t++) {
            int out = inputs + t;
            int k = rng.nextInt(4);
            nodeIns[t] = new int[k];
            for (int j = 0; j < k; j++) {
                nodeIns[t][j] = rng.nextInt(10) == 0 ? FlatGraph.NONE : rng.nextInt(out);
            }
            if (k > 0 && nodeIns[t][0] != FlatGraph.NONE && rng.nextInt(5) == 0) {
                roots[out] = roots[nodeIns[t][0]]; // a view of its first input
            } else if (k > 0 && nodeIns[t][0] != FlatGraph.NONE && rng.nextInt(3) == 0) {
                mask[out] = 1; // may overwrite its first input
            }
            if (rng.nextInt(6) == 0) {
                flags[out] = FlatGraph.GRAPH_OUTPUT;
            }
        }
        int[] nodeId = IntStream.range(0, nodes).toArray();
        if (!inOrder) {
            for (int i = nodes - 1; i > 0; i--) {
                int j = rng.nextInt(i + 1);
                int tmp = nodeId[i];
                nodeId[i] = nodeId[j];
                nodeId[j] = tmp;
            }
        }
        int[][] byId = new int[nodes][];
        int[] outById = new int[nodes];
        for (int t = 0; t < nodes; t++) {
            byId[nodeId[t]] = nodeIns[t];
            outById[nodeId[t]] = inputs + t;
        }
        Arrays7 a = new Arrays7();
        a.numValues = values;
        a.numNodes = nodes;
        a.inOff = new int[nodes + 1];
        a.outOff = new int[nodes + 1];
        for (int n = 0; n < nodes; n++) {
            a.inOff[n + 1] = a.inOff[n] + byId[n].length;
            a.outOff[n + 1] = n + 1;
        }
        a.ins = Arrays.stream(byId).flatMapToInt(Arrays::stream).toArray();
        a.outs = outById;
        a.flags = flags;
        a.roots = roots;
        a.mask = rng.nextBoolean() ? mask : null;
        return a;
    }

    /** Breaks one entry or one length of the arrays, or adds a cycle (sometimes a harmless change). */
    private static void breakOne(Arrays7 a, Random rng) {
        int junk = rng.nextInt(4) == 0 ? rng.nextInt() : rng.nextInt(a.numValues + 4) - 2;
        switch (rng.nextInt(13)) {
            case 12 -> readOwnOrAnyOutput(a, rng);
            case 0 -> set(a.inOff, rng, junk);
            case 1 -> set(a.outOff, rng, junk);
            case 2 -> set(a.ins, rng, junk);
            case 3 -> set(a.outs, rng, junk);
            case 4 -> set(a.roots, rng, junk);
            case 5 -> set(a.flags, rng, rng.nextInt(10));
            case 6 -> a.mask = a.mask == null ? new int[a.numValues] : a.mask;
            case 7 -> {
                if (a.mask != null) {
                    set(a.mask, rng, rng.nextInt(8));
                }
            }
            case 8 -> a.ins = Arrays.copyOf(a.ins, Math.max(0, a.ins.length + (rng.nextBoolean() ? 1 : -1)));
            case 9 -> a.roots = Arrays.copyOf(a.roots, Math.max(0, a.roots.length + (rng.nextBoolean() ? 1 : -1)));
            case 10 -> a.numValues += rng.nextBoolean() ? 1 : -1;
            default -> {
                if (a.mask != null) {
                    a.mask = Arrays.copyOf(a.mask, a.mask.length + 1);
                }
            }
        }
    }

    /** A node's first input becomes its own output (a cycle) or any node's (maybe one). */
    private static void readOwnOrAnyOutput(Arrays7 a, Random rng) {
        if (a.numNodes == 0) {
            return;
        }
        int n = rng.nextInt(a.numNodes);
        if (a.inOff[n + 1] > a.inOff[n]) {
            a.ins[a.inOff[n]] = a.outs[rng.nextBoolean() ? n : rng.nextInt(a.numNodes)];
        }
    }

    private static void set(int[] array, Random rng, int value) {
        if (array.length > 0) {
            array[rng.nextInt(array.length)] = value;
        }
    }

    private static Object outcome(PlanningEngine engine, Arrays7 a) {
        try {
            return engine.compile(a.graph(), a.roots, a.mask, true);
        } catch (RuntimeException e) {
            return e;
        }
    }

    static IntStream seeds() {
        return IntStream.range(0, 400);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void bothEnginesRefuseTheSameGraphsWithTheSameMessage(int seed) {
        Random rng = new Random(seed);
        Arrays7 a = randomGraph(rng, rng.nextBoolean());
        if (seed % 8 != 0) { // one case in eight stays valid
            breakOne(a, rng);
        }
        Object java = outcome(JavaEngine.INSTANCE, a);
        Object nativeResult = outcome(nativeEngine, a);
        if (java instanceof RuntimeException expected) {
            assertTrue(nativeResult instanceof RuntimeException, () -> "native compiled what Java refused: "
                    + expected.getMessage());
            RuntimeException actual = (RuntimeException) nativeResult;
            assertEquals(expected.getClass(), actual.getClass());
            assertEquals(expected.getMessage(), actual.getMessage());
            if (expected instanceof GraphCycleException cycle) {
                assertEquals(cycle.nodeId(), ((GraphCycleException) actual).nodeId());
            }
        } else {
            assertTrue(nativeResult instanceof CompiledGraph, () -> "native refused what Java compiled: "
                    + ((Throwable) nativeResult).getMessage());
            assertSameSchedule((CompiledGraph) java, (CompiledGraph) nativeResult);
        }
    }

    /**
     * A view made before its root (node 0 makes view 1 of value 2, which node 1 makes): the root's
     * owner would start after the view's bytes were written, so both engines refuse it, naming
     * the view. Found by the compile fuzzer (src/fuzz/cpp); ViewMap never builds such a graph.
     */
    @Test
    void aViewMadeBeforeItsRootIsRefusedByBothEngines() {
        Arrays7 a = new Arrays7();
        a.numValues = 3;
        a.numNodes = 2;
        a.inOff = new int[] {0, 1, 2};
        a.ins = new int[] {0, 0};
        a.outOff = new int[] {0, 1, 2};
        a.outs = new int[] {1, 2};
        a.flags = new int[] {FlatGraph.GRAPH_INPUT, FlatGraph.GRAPH_OUTPUT, 0};
        a.roots = new int[] {0, 2, 2};
        for (PlanningEngine engine : new PlanningEngine[] {JavaEngine.INSTANCE, nativeEngine}) {
            Object result = outcome(engine, a);
            assertTrue(result instanceof IllegalArgumentException, () -> engine + " compiled it: " + result);
            assertEquals("invalid flat graph: value 1 is a view of 2, which is made after it; a view's root"
                    + " must be made first", ((IllegalArgumentException) result).getMessage());
        }
        a.roots = new int[] {0, 1, 1}; // the other way round: value 2 a view of 1, made first
        assertTrue(outcome(nativeEngine, a) instanceof CompiledGraph);
    }

    /** Every case kind above occurs: valid graphs, refusals and cycles, on both paths. */
    @Test
    void theCasesCoverValidRefusedAndCyclicGraphs() {
        int valid = 0;
        int refused = 0;
        int cycles = 0;
        for (int seed = 0; seed < 400; seed++) {
            Random rng = new Random(seed);
            Arrays7 a = randomGraph(rng, rng.nextBoolean());
            if (seed % 8 != 0) {
                breakOne(a, rng);
            }
            Object java = outcome(JavaEngine.INSTANCE, a);
            if (java instanceof GraphCycleException) {
                cycles++;
            } else if (java instanceof RuntimeException) {
                refused++;
            } else {
                valid++;
            }
        }
        assertTrue(valid > 50, "valid cases: " + valid);
        assertTrue(refused > 100, "refused cases: " + refused);
        assertTrue(cycles > 5, "cyclic cases: " + cycles);
    }

    private static void assertSameSchedule(CompiledGraph expected, CompiledGraph actual) {
        assertEquals(expected.numOwners(), actual.numOwners());
        assertEquals(expected.numPositions(), actual.numPositions());
        assertArrayEquals(ints(expected.order()), ints(actual.order()));
        assertArrayEquals(ints(expected.ownerValues()), ints(actual.ownerValues()));
        assertArrayEquals(ints(expected.ownerDefs()), ints(actual.ownerDefs()));
        assertArrayEquals(ints(expected.ownerUseEnds()), ints(actual.ownerUseEnds()));
        assertArrayEquals(ints(expected.valueBuffers()), ints(actual.valueBuffers()));
    }

    private static int[] ints(IntBuffer b) {
        int[] out = new int[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
