// SPDX-License-Identifier: Apache-2.0
package dev.memplan.ort.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memplan.InvalidSizeException;
import dev.memplan.testing.EngineIndependent;
import org.junit.jupiter.api.Test;

/**
 * The arena replay at the far end of a long: a block up to 2^62 bytes is modelled (its region
 * doubling stops there), a larger one or regions past 2^63-1 bytes in all are refused with
 * memplan's one-line size error. The ort fuzz target found the replay doubling a region size past
 * a long forever, for a mutated model whose memory-pattern block was above 2^62.
 */
@EngineIndependent
class BfcArenaLimitsTest {

    @Test
    void aBlockOfTwoToTheSixtyTwoIsModelled() {
        BfcArena arena = new BfcArena();
        arena.alloc(BfcArena.MAX_BLOCK_BYTES);
        assertEquals(BfcArena.MAX_BLOCK_BYTES, arena.reserved());
        assertEquals(BfcArena.MAX_BLOCK_BYTES, arena.maxInUse());
    }

    @Test
    void aLargerBlockIsRefusedInOneLine() {
        BfcArena arena = new BfcArena();
        InvalidSizeException e = assertThrows(InvalidSizeException.class, () -> arena.alloc(Long.MAX_VALUE - 3));
        assertTrue(e.getMessage().contains("more than 2^62") && !e.getMessage().contains("\n"), e.getMessage());
        assertThrows(InvalidSizeException.class, () -> arena.allocAndFree(BfcArena.MAX_BLOCK_BYTES + 1));
    }

    @Test
    void regionsPastALongInAllAreRefused() {
        BfcArena arena = new BfcArena();
        arena.alloc(BfcArena.MAX_BLOCK_BYTES);
        // the next region is 2^62 bytes too (the doubling stops at the cap): 2^63 in all
        InvalidSizeException e = assertThrows(InvalidSizeException.class, () -> arena.alloc(1));
        assertTrue(e.getMessage().contains("more than 2^63-1 bytes in all"), e.getMessage());
    }
}
