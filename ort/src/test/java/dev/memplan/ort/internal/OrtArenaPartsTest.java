// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.DataType;
import dev.memplan.Graph;
import dev.memplan.InvalidSizeException;
import dev.memplan.Shape;
import dev.memplan.testing.EngineIndependent;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The replay's pieces on cases whose figures docs/ort-runtime.md derives by hand from ORT's statistics. */
@EngineIndependent
class OrtArenaPartsTest {

    /**
     * SqueezeNet at level all (docs/ort-runtime.md, section 3): its 3,154,176 B tensor takes a 4 MiB
     * region whole; the 774,400 B one goes into a second region, which is split; ORT reported
     * MaxInUse 4,968,704 and TotalAllocated 8,388,608.
     */
    @Test
    void aChunkUnderTwiceTheRequestIsHandedOutWholeAndRegionsGrowByPowersOfTwo() {
        BfcArena arena = new BfcArena();
        long first = arena.alloc(3_154_176);
        arena.alloc(774_400);
        assertEquals(4_968_704, arena.maxInUse());
        assertEquals(8_388_608, arena.reserved());
        assertEquals(4_968_704 - 3_154_176 - 774_400, arena.maxInUse() - arena.requestedAtMax());
        arena.free(first); // only the freed 4 MiB chunk fits (the second region has 3,419,904 B left)
        long again = arena.alloc(3_500_000);
        assertEquals(first, again);
        assertEquals(8_388_608, arena.reserved());
    }

    @Test
    void freedNeighboursOfOneRegionCoalesce() {
        BfcArena arena = new BfcArena();
        long a = arena.alloc(256);
        long b = arena.alloc(256);
        arena.alloc(256);
        arena.free(a);
        arena.free(b);
        assertEquals(a, arena.alloc(512), "the two freed 256 B chunks merged into one 512 B chunk");
        assertEquals(1 << 20, arena.reserved());
    }

    @Test
    void thePatternTakesTheBestFittingGapElseGoesOnTop() {
        MemoryPattern pattern = new MemoryPattern(4);
        pattern.allocate(0, 1024);
        pattern.allocate(1, 256);
        pattern.allocate(2, 512);
        pattern.free(0); // a 1024 B gap at offset 0
        pattern.allocate(3, 2048); // does not fit the gap: right above the highest live block
        assertEquals(1024 + 256 + 512 + 2048, pattern.size());
    }

    /** In place needs the last reader; a Relu whose input is read again gets a buffer of its own. */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void reluRunsInPlaceOnlyOnItsInputsLastRead(boolean inputReadAgain) {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.fixed(1 << 18));
        int e = b.value("e", DataType.FLOAT32, Shape.fixed(1 << 18));
        int r = b.value("r", DataType.FLOAT32, Shape.fixed(1 << 18));
        int y = b.value("y", DataType.FLOAT32, Shape.fixed(1 << 19));
        b.node("exp", "Exp", new int[] {x}, new int[] {e});
        b.node("relu", "Relu", new int[] {e}, new int[] {r});
        b.node("concat", "Concat", new int[] {inputReadAgain ? e : r, r}, new int[] {y});
        Graph graph = b.input(x).output(y).build();

        OrtReusePlan plan = OrtReusePlan.of(graph);

        assertEquals(inputReadAgain ? 0 : 1, plan.sharedInPlace());
    }

    @Test
    void anUnboundSymbolNamesTheValueOnOneLine() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.of("batch", 4));
        int y = b.value("y", DataType.FLOAT32, Shape.of("batch", 4));
        b.node("exp", "Exp", new int[] {x}, new int[] {y});
        OrtArenaPredictor predictor = OrtArenaPredictor.of(b.input(x).output(y).build(), NodeAttributes.none());

        InvalidSizeException e = assertThrows(InvalidSizeException.class, () -> predictor.predict(Map.of()));

        assertTrue(e.getMessage().contains("'y'") && e.getMessage().contains("bind"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
        assertEquals(256, predictor.predict(Map.of("batch", 8L)).outputsHeldBytes(),
                "the output, 8 x 4 floats = 128 B, rounded to 256 B");
    }

    @Test
    void aStaticGraphIsReplayedOnceAtCompileTime() {
        Graph.Builder b = Graph.builder();
        int x = b.value("x", DataType.FLOAT32, Shape.fixed(1000));
        int y = b.value("y", DataType.FLOAT32, Shape.fixed(1000));
        b.node("exp", "Exp", new int[] {x}, new int[] {y});
        OrtArenaPredictor predictor = OrtArenaPredictor.of(b.input(x).output(y).build(), NodeAttributes.none());

        assertSame(predictor.predict(Map.of()), predictor.predict(Map.of("unused", 3L)));
        assertEquals(predictor.replay(Map.of()), predictor.predict(Map.of()));
        // Two runs, each output 4,000 B -> 4,096 B held by the caller: 8,192 B.
        assertEquals(8_192, predictor.predict(Map.of()).activationBytes());
    }
}
