// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.testing.EngineIndependent;
import org.junit.jupiter.api.Test;

/**
 * The arena a session leaves, as the replay starts from it: its free chunk is taken whole or split
 * as ORT's would be, its next region has the size measured, and a start that no arena can be in is
 * refused in one line. Silero VAD legacy's figures on ORT 1.23.2 (docs/ort-runtime.md).
 */
@EngineIndependent
class OrtArenaStartTest {
    private static final long MIB = 1L << 20;

    @Test
    void theSessionsFreeChunkIsTakenWholeWhenLessThanTwiceTheRequest() {
        BfcArena arena = new BfcArena();
        arena.reset(new OrtArenaStart(991_232, 2 * MIB));
        arena.alloc(500_224); // run 2's pattern block
        assertEquals(991_232, arena.maxInUse());
        assertEquals(0, arena.reserved());
        arena.alloc(600_000); // the next request adds a 2 MiB region
        assertEquals(2 * MIB, arena.reserved());
    }

    @Test
    void fromAnEmptyArenaTheSameRequestSplitsANewRegion() {
        BfcArena arena = new BfcArena();
        arena.reset(OrtArenaStart.EMPTY);
        arena.alloc(500_224);
        assertEquals(500_224, arena.maxInUse());
        assertEquals(MIB, arena.reserved());
    }

    @Test
    void aFreedChunkMergesBackIntoTheStartsFreeChunk() {
        BfcArena arena = new BfcArena();
        arena.reset(new OrtArenaStart(4 * 256, 2 * MIB));
        int a = arena.alloc(256);
        int b = arena.alloc(256);
        arena.free(a);
        arena.free(b);
        arena.alloc(4 * 256); // fits again without a region: the chunk merged whole
        assertEquals(0, arena.reserved());
    }

    @Test
    void aStartIsWrittenAndReadBack() {
        OrtArenaStart start = new OrtArenaStart(991_232, 2 * MIB);
        assertEquals(start, OrtArenaStart.parse(start.format()));
        assertEquals(OrtArenaStart.EMPTY, OrtArenaStart.parse(OrtArenaStart.EMPTY.format()));
    }

    @Test
    void aStartNoArenaCanBeInIsRefusedInOneLine() {
        for (long[] bad : new long[][] {{-256, MIB}, {100, MIB}, {0, MIB / 2}, {0, 3 * MIB}, {0, Long.MIN_VALUE}}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new OrtArenaStart(bad[0], bad[1]));
            assertTrue(!e.getMessage().contains("\n") && e.getMessage().contains(Long.toString(
                    bad[0] < 0 || bad[0] % 256 != 0 ? bad[0] : bad[1])), e.getMessage());
        }
        for (String text : new String[] {"", "1 2 3", "x 1048576", "256"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OrtArenaStart.parse(text));
            assertTrue(e.getMessage().contains("'" + text.strip() + "'"), e.getMessage());
        }
    }
}
